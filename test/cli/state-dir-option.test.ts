import { resolve } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../../src/cli/program.js';
import { resolveStateDirOption, shownStateDir, STATE_DIR_DEFAULT } from '../../src/cli/state-dir-option.js';
import { captureIo } from '../helpers/cli.js';

function parsed(argv: string[], fileOption = false): string {
  let seen = '';
  const program = new Command('crucible').exitOverride().hook('preAction', (_p, action) => resolveStateDirOption(action, process.cwd()));
  const cmd = program.command('x');
  if (fileOption) cmd.option('-o, --out <file>', 'a file to write');
  else cmd.option('-o, --out <dir>', "Crucible's state directory", STATE_DIR_DEFAULT);
  cmd.action((opts: { out?: string }) => {
    seen = opts.out ?? '';
  });
  program.parse(['node', 'crucible', 'x', ...argv]);
  return seen;
}

describe('the state-directory option', () => {
  it('is absolute before the action runs, whether defaulted, relative or absolute', () => {
    expect(parsed([])).toBe(resolve('.crucible'));
    expect(parsed(['-o', 'state/here'])).toBe(resolve('state/here'));
    expect(parsed(['--out', '/tmp/abs-state'])).toBe('/tmp/abs-state');
  });

  it('is shown in messages as the user gave it: relative inside the working directory, else absolute', () => {
    expect(shownStateDir(resolve('.crucible'), process.cwd())).toBe('.crucible');
    expect(shownStateDir(resolve('state/here'), process.cwd())).toBe('state/here');
    expect(shownStateDir(process.cwd(), process.cwd())).toBe('.');
    expect(shownStateDir('/tmp/abs-state', process.cwd())).toBe('/tmp/abs-state');
  });

  it('leaves a file output as written', () => {
    expect(parsed(['-o', 'report.json'], true)).toBe('report.json');
  });

  // The hook recognises a state directory by its default: a command whose state-dir option had
  // another default (or none) would pass a relative path on to git again.
  it('reaches every state-directory option the program declares', () => {
    const { command } = createProgram(captureIo().io);
    const stateDirs: string[] = [];
    const walk = (c: Command): void => {
      for (const o of c.options)
        if (/state directory/.test(o.description) && o.long === '--out') stateDirs.push(`${c.name()} ${o.flags}: ${String(o.defaultValue)}`);
      for (const sub of c.commands) walk(sub);
    };
    walk(command);
    expect(stateDirs.length).toBeGreaterThan(20);
    for (const line of stateDirs) expect(line.endsWith(`: ${STATE_DIR_DEFAULT}`), line).toBe(true);
  });
});
