/**
 * A mined task's instruction, written without a model from what the commit says and what its
 * failing tests report: the commit message (its subject as the problem, its body as context,
 * trailers and diff-like lines dropped) and each fail-to-pass test's name with its first failure
 * message at the starting point. Never the fix: no line of the oracle's diff, no test file's text.
 */
export interface InstructionSource {
  /** The full commit message. */
  message: string;
  /** Fail-to-pass ids, in report order. */
  failToPass: readonly string[];
  /** Their failure messages at the starting point, by id, when the report had one. */
  messages: Readonly<Record<string, string>>;
}

/** How many failing tests are named; the rest are counted. */
const MAX_TESTS = 8;

/** `Signed-off-by:`, `Co-authored-by:`, `Fixes #12`-style lines and the like, which say who, not what. */
const TRAILER = /^[A-Za-z][A-Za-z-]*-by:|^(Change-Id|Reviewed-on|Cherry-picked from|PR-URL|Refs?|Closes|Fixes|Resolves):?\s/i;

/** The parts an instruction is made of, each from the commit message or the failing tests only. */
export interface InstructionParts {
  /** The subject as a problem to solve, one sentence. */
  problem: string;
  /** The message's body without trailers and diff-like lines ('' when none). */
  body: string;
  /** One `- \`id\`: message` line per failing test (the first few, then a count). */
  failingTests: string;
}

export function instructionParts(source: InstructionSource): InstructionParts {
  const lines = source.message.replace(/\r\n/g, '\n').split('\n');
  const body = lines
    .slice(1)
    .filter((l) => !TRAILER.test(l.trim()) && !/^[+-]{1,3}\s|^@@ |^diff --git /.test(l))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  const shown = source.failToPass.slice(0, MAX_TESTS).map((id) => {
    // Some reporters (mocha's TAP) repeat the test's title as its message: it says nothing more.
    const given = source.messages[id];
    const message = given !== undefined && given.trim() !== '' && given.trim() !== id ? given : undefined;
    return `- \`${id}\`${message !== undefined ? `: ${message}` : ''}`;
  });
  const more = source.failToPass.length - shown.length;
  return { problem: problemOf(lines[0]?.trim() ?? ''), body, failingTests: [...shown, ...(more > 0 ? [`- and ${more} more`] : [])].join('\n') };
}

export function writeInstruction(source: InstructionSource): string {
  const parts = instructionParts(source);
  return [
    parts.problem,
    ...(parts.body !== '' ? ['', parts.body] : []),
    '',
    `How it shows: ${source.failToPass.length === 1 ? 'this test fails' : 'these tests fail'} now and must pass once it is fixed, with every other test still passing:`,
    parts.failingTests,
    '',
  ].join('\n');
}

/** `fix(parser): handle empty input` → `Parser: handle empty input.` — the subject as a problem to solve. */
function problemOf(subject: string): string {
  const conventional = /^(?:fix|bug|bugfix|hotfix)(?:\(([^)]*)\))?!?:\s*(.*)$/i.exec(subject);
  const text = conventional ? `${conventional[1] ? `${conventional[1]}: ` : ''}${conventional[2] ?? ''}` : subject;
  const trimmed = text.trim() === '' ? 'Fix the failing behaviour described below' : text.trim();
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/**
 * The message an instruction is drafted from, given a commit's range's messages (oldest first): a
 * merge's own subject names a branch or a tag, not the change, so its body (a pull request's
 * title) stands in for it, else the newest merged commit's message.
 */
export function instructionMessage(messages: readonly string[], subject: string): string {
  const last = messages.at(-1) ?? subject;
  if (!/^Merge\b/.test(last)) return last;
  const body = last.split('\n').slice(1).join('\n').trim();
  if (body !== '') return body;
  return [...messages].reverse().find((m) => !/^Merge\b/.test(m)) ?? last;
}
