/**
 * Collects one output stream up to a byte limit, keeping the head: the start of a log says what
 * ran, and an agent's runaway output must not exhaust the harness's memory. Bytes past the limit
 * are still read (so the child never blocks on a full pipe) but dropped.
 */
export class BoundedOutput {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private dropped = false;

  constructor(private readonly limit: number) {}

  append(chunk: Buffer): void {
    if (chunk.length === 0) return;
    const room = this.limit - this.kept;
    if (room <= 0) {
      this.dropped = true;
      return;
    }
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (part !== chunk) this.dropped = true;
    this.chunks.push(part);
    this.kept += part.length;
  }

  get truncated(): boolean {
    return this.dropped;
  }

  /** UTF-8 text; invalid bytes become U+FFFD, and a character cut by the limit is left out whole. */
  text(): string {
    const bytes = Buffer.concat(this.chunks, this.kept);
    const end = this.dropped ? completeUtf8Length(bytes) : bytes.length;
    return bytes.toString('utf8', 0, end);
  }
}

/**
 * Length of the longest prefix of `bytes` that does not end inside a multi-byte UTF-8 sequence,
 * so cutting there never manufactures a replacement character the child did not write.
 */
export function completeUtf8Length(bytes: Uint8Array): number {
  const length = bytes.length;
  let continuations = 0;
  while (continuations < 3 && continuations < length && isContinuation(bytes[length - 1 - continuations])) {
    continuations++;
  }
  const leadIndex = length - 1 - continuations;
  if (leadIndex < 0) return length;
  const needed = sequenceLength(bytes[leadIndex] ?? 0);
  // Invalid or complete sequences are kept as they are; only a started-but-unfinished one is cut.
  return needed > 1 && continuations + 1 < needed ? leadIndex : length;
}

function isContinuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

function sequenceLength(lead: number): number {
  if ((lead & 0xe0) === 0xc0) return 2;
  if ((lead & 0xf0) === 0xe0) return 3;
  if ((lead & 0xf8) === 0xf0) return 4;
  return 1;
}
