import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { resolveStateDirOption, shownStateDir, STATE_DIR_DEFAULT } from '../../src/cli/state-dir-option.js';

function parsed(argv: string[], fileOption = false): string {
  let seen = '';
  const program = new Command('crucible').exitOverride().hook('preAction', (_p, action) => resolveStateDirOption(action));
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
    expect(shownStateDir(resolve('.crucible'))).toBe('.crucible');
    expect(shownStateDir(resolve('state/here'))).toBe('state/here');
    expect(shownStateDir(process.cwd())).toBe('.');
    expect(shownStateDir('/tmp/abs-state')).toBe('/tmp/abs-state');
  });

  it('leaves a file output as written', () => {
    expect(parsed(['-o', 'report.json'], true)).toBe('report.json');
  });

  // The hook recognises a state directory by its default: a command whose state-dir option had
  // another default (or none) would pass a relative path on to git again.
  it('reaches every state-directory option main.ts declares', () => {
    const source = readFileSync('src/cli/main.ts', 'utf8');
    const options = [...source.matchAll(/\.(?:option|requiredOption)\(\s*'([^']*--out[^']*)',\s*(["'`])((?:(?!\2).)*)\2(?:,\s*([^)]*))?\)/g)];
    const stateDirs = options.filter((m) => /state directory/.test(m[3] ?? ''));
    expect(stateDirs.length).toBeGreaterThan(20);
    for (const m of stateDirs) expect(`${m[1]} ${m[3]}: ${m[4] ?? '(no default)'}`).toBe(`${m[1]} ${m[3]}: '${STATE_DIR_DEFAULT}'`);
  });
});
