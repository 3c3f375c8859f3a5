import { describe, expect, it } from 'vitest';
import { buildChildEnv } from '../../src/infra/sandbox/env.js';

describe('buildChildEnv', () => {
  const hostEnv = { PATH: '/opt/tool/bin:/usr/bin', HOME: '/home/me', OPENAI_API_KEY: 'sk-secret', PYENV_ROOT: '/home/me/.pyenv' };

  it('takes only PATH and PYENV_ROOT from the host, and sets the rest itself', () => {
    expect(buildChildEnv({ hostEnv, home: '/attempt/home', tmpdir: '/attempt/tmp' })).toEqual({
      PATH: '/opt/tool/bin:/usr/bin',
      HOME: '/attempt/home',
      TMPDIR: '/attempt/tmp',
      LANG: 'C.UTF-8',
      TERM: 'dumb',
      PYENV_ROOT: '/home/me/.pyenv',
    });
  });

  it('leaves PYENV_ROOT out when the host has none, and falls back to a standard PATH', () => {
    const env = buildChildEnv({ hostEnv: {}, home: '/h', tmpdir: '/t' });
    expect(env).not.toHaveProperty('PYENV_ROOT');
    expect(env.PATH).toContain('/usr/bin');
  });

  it("puts the request's variables on top", () => {
    const env = buildChildEnv({ hostEnv, home: '/h', tmpdir: '/t', requestEnv: { TERM: 'xterm', CRUCIBLE_JUNIT: '/r/j.xml' } });
    expect(env).toMatchObject({ TERM: 'xterm', CRUCIBLE_JUNIT: '/r/j.xml' });
  });

  it('rejects names and values a process environment cannot hold', () => {
    expect(() => buildChildEnv({ hostEnv, home: '/h', tmpdir: '/t', requestEnv: { 'A=B': 'x' } })).toThrow(/invalid environment variable name/);
    expect(() => buildChildEnv({ hostEnv, home: '/h', tmpdir: '/t', requestEnv: { A: 'x\0y' } })).toThrow(/NUL/);
  });
});
