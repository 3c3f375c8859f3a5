/**
 * What an external agent's stdout says about its attempt, read by one parser per output format.
 * Every parser is tolerant: a line it does not know is skipped, never an error, because agents add
 * event types between versions and a partial stdout (a timeout) must still yield what it holds.
 */
export interface ParsedOutput {
  /** The agent's last word to the user. */
  finalMessage?: string;
  /** Model turns, as the agent counts them. */
  turns?: number;
  /** Tool calls the agent reports, in order, with their results when it reports them. */
  tools: ReportedTool[];
  /** Shell commands the agent says it ran (a Bash tool use, a codex command_execution). */
  commands: ReportedCommand[];
  /** An error the agent reported about itself (a failed turn, an error result). */
  error?: string;
}

export interface ReportedTool {
  /** The model's tool-call id when the agent reports it, to match the gateway's turn. */
  id?: string;
  name: string;
  input: unknown;
  output?: string;
  ok?: boolean;
  /**
   * For an agent that numbers its tools itself (Codex's `item_3`, not the wire's call id): the
   * names of the model's calls this report is of. The trajectory pairs such reports with those
   * calls in order, and only when there are as many of each (trajectory.ts).
   */
  answers?: readonly string[];
}

export interface ReportedCommand {
  /** As the agent wrote it: one shell command line. */
  command: string;
  exitCode?: number | null;
  /** The tool call it belongs to, when known. */
  toolId?: string;
}

export function emptyOutput(): ParsedOutput {
  return { tools: [], commands: [] };
}

/** Each line that is a JSON object, in order; other lines (banners, warnings) are skipped. */
export function jsonLines(stdout: string): Array<Record<string, unknown>> {
  const objects: Array<Record<string, unknown>> = [];
  for (const line of stdout.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('{')) continue;
    const value = parseJson(trimmed);
    if (isRecord(value)) objects.push(value);
  }
  return objects;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
