import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { withOptions } from '../../src/cli/options.js';
import { REPORTER_OPTIONS, reporterOptions } from '../../src/cli/report-options.js';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { InputError } from '../../src/core/errors.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

describe('--reporter and the task set reporters field', () => {
  it('collects repeated and comma-separated --reporter flags', () => {
    const cmd = withOptions(new Command('run').exitOverride(), REPORTER_OPTIONS);
    cmd.parse(['--reporter', 'sarif', '--reporter', 'junit,markdown', '--reporter', 'sarif'], { from: 'user' });
    expect(reporterOptions(cmd.opts())).toEqual(['sarif', 'junit', 'markdown']);
  });

  it('--reporter wins over the task set; neither means the defaults', () => {
    expect(reporterOptions({ reporter: ['json'] }, ['html'])).toEqual(['json']);
    expect(reporterOptions({}, ['html'])).toEqual(['html']);
    expect(reporterOptions({})).toBeUndefined();
  });

  it('names an unknown reporter and the fix', () => {
    expect(() => reporterOptions({ reporter: ['xml'] })).toThrow(InputError);
    expect(() => reporterOptions({ reporter: ['xml'] })).toThrow(
      '--reporter xml: no such reporter (fix: use one of json, markdown, html, sarif, junit, github)',
    );
  });

  it('reads `reporters` from the task-set file and rejects unknown ones with file and line', () => {
    const dir = tempDir();
    const task = `tasks:\n  - id: t\n    repo: { path: . }\n    instruction: fix it\n    tests: { command: 'true', fail_to_pass: [a] }\n`;
    writeFileSync(join(dir, 'ok.yaml'), `reporters: [sarif, junit]\n${task}`);
    expect(loadTaskSet(join(dir, 'ok.yaml')).reporters).toEqual(['sarif', 'junit']);
    writeFileSync(join(dir, 'none.yaml'), task);
    expect(loadTaskSet(join(dir, 'none.yaml')).reporters).toBeUndefined();
    writeFileSync(join(dir, 'bad.yaml'), `reporters: [sarif, pdf]\n${task}`);
    expect(() => loadTaskSet(join(dir, 'bad.yaml'))).toThrow(/bad\.yaml:1:\d+: reporters/);
  });
});
