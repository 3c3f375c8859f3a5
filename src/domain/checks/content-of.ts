import { detectContent, type ContentScan } from './content-scan.js';
import type { CheckInput } from './types.js';

/** The content findings the checks judge: given, or detected from the added lines when only those were given. */
export function contentOf(input: CheckInput): ContentScan | undefined {
  return input.content ?? detectContent(input.addedLines, input.policy.secrets.literals);
}
