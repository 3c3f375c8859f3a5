import type { AgentOutputFormat } from '../profile.js';
import { parseClaudeStreamJson } from './claude-stream-json.js';
import { parseCodexJson } from './codex-json.js';
import { parseGeminiJson } from './gemini-json.js';
import { parseTextOutput } from './text.js';
import type { ParsedOutput } from './types.js';

export type { ParsedOutput, ReportedCommand, ReportedTool } from './types.js';

const PARSERS: Record<AgentOutputFormat, (stdout: string) => ParsedOutput> = {
  'claude-stream-json': parseClaudeStreamJson,
  'codex-json': parseCodexJson,
  'gemini-json': parseGeminiJson,
  text: parseTextOutput,
};

export function parseAgentOutput(format: AgentOutputFormat, stdout: string): ParsedOutput {
  return PARSERS[format](stdout);
}
