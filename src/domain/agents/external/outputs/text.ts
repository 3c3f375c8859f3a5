import { emptyOutput, type ParsedOutput } from './types.js';

/** Plain text: the final message is the last non-empty paragraph of stdout; nothing else is known. */
export function parseTextOutput(stdout: string): ParsedOutput {
  const paragraphs = stdout
    .replace(/\r\n/g, '\n')
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const last = paragraphs.at(-1);
  return { ...emptyOutput(), ...(last !== undefined ? { finalMessage: last } : {}) };
}
