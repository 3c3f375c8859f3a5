import { Command, CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { MODEL_OPTIONS } from '../../src/cli/model-options.js';
import { sandboxSpec, stateDirSpec, withOptions } from '../../src/cli/options.js';

/** A command that throws on a usage error instead of exiting, and prints nothing. */
function command(name: string): Command {
  return new Command(name).exitOverride().configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
}

describe('shared option groups are values each command gets options of its own from', () => {
  it('two commands given the same group hold distinct options, and each parses its own values', () => {
    const run = withOptions(command('run'), MODEL_OPTIONS);
    const gate = withOptions(command('gate'), MODEL_OPTIONS);
    expect(run.options.map((o) => o.flags)).toEqual(MODEL_OPTIONS.map((o) => o.flags));
    for (const option of run.options) expect(gate.options).not.toContain(option);
    run.parse(['--base-url', 'http://a', '--base-url', 'openai=http://b', '--max-turns', '3'], { from: 'user' });
    gate.parse(['--model', 'openai:x'], { from: 'user' });
    expect(run.opts()).toEqual({ baseUrl: ['http://a', 'openai=http://b'], maxTurns: '3' });
    expect(gate.opts()).toEqual({ model: ['openai:x'] });
  });

  it('keeps what a spec says: conflicts, choices and defaults', () => {
    const conflicting = withOptions(command('run'), MODEL_OPTIONS);
    expect(() => conflicting.parse(['--record', 'a', '--replay', 'b'], { from: 'user' })).toThrow(CommanderError);
    const sandboxed = withOptions(command('audit'), [sandboxSpec('where', ['bwrap', 'local']), stateDirSpec()]);
    expect(() => sandboxed.parse(['--sandbox', 'docker'], { from: 'user' })).toThrow(/Allowed choices are bwrap, local/);
    const defaulted = withOptions(command('audit'), [stateDirSpec()]);
    defaulted.parse([], { from: 'user' });
    expect(defaulted.opts()).toEqual({ out: '.crucible' });
  });
});
