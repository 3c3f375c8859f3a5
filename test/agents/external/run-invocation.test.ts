import { describe, expect, it } from 'vitest';
import { buildInvocation, versionArgv } from '../../../src/domain/agents/external/invocation.js';
import type { AgentProfile } from '../../../src/domain/agents/external/profile.js';

const profile: AgentProfile = {
  name: 'codex',
  package: '@openai/codex@0.171.0',
  command: ['codex', 'exec', '--json', '-m', '{model}', '-C', '{repo_dir}', '{task_prompt}', '--prompt-file={task_file}'],
  stdin: 'prompt',
  env: ['HTTPS_PROXY', 'OPENAI_API_KEY', 'UNSET_ONE'],
  setEnv: { CODEX_HOME: '{home}/.codex', OPENAI_BASE_URL: 'https://api.openai.com/v1', NOTE: 'model={model} url={base_url}' },
  homeFiles: { '.codex/config.toml': 'model = "{model}"\nbase_url = "{base_url}"\nkey = "{api_key}"\nrepo = "{repo_dir}"\nliteral = "{task_prompt}"\n' },
  versionCommand: ['codex', '--version'],
  model: 'gpt-5-codex',
  protocol: { kind: 'openai-responses', baseUrlEnv: ['OPENAI_BASE_URL'], apiKeyEnv: ['OPENAI_API_KEY', 'CODEX_API_KEY'] },
  output: 'codex-json',
  source: 'builtin',
};

const input = {
  profile,
  argv0: '/cache/agents/codex/node_modules/.bin/codex',
  model: 'gpt-5-mini',
  instruction: 'Fix {the} bug',
  workspace: '/a/workspace',
  home: '/a/home',
  taskFile: '/a/home/crucible-task.md',
  baseUrl: 'http://127.0.0.1:4000/s/tok/openai/v1',
  apiKey: 'dummy',
  hostEnv: { HTTPS_PROXY: 'http://proxy:3128', OPENAI_API_KEY: 'sk-real-never-passed', PATH: '/usr/bin' },
};

describe('buildInvocation', () => {
  it('fills whole-item placeholders only, and puts the prompt on stdin when asked', () => {
    const inv = buildInvocation(input);
    expect(inv.argv).toEqual([
      input.argv0,
      'exec',
      '--json',
      '-m',
      'gpt-5-mini',
      '-C',
      '/a/workspace',
      'Fix {the} bug',
      // Embedded placeholders are the schema's error; the runner never expands them.
      '--prompt-file={task_file}',
    ]);
    expect(inv.stdin).toBe('Fix {the} bug');
    expect(buildInvocation({ ...input, profile: { ...profile, stdin: 'none' } }).stdin).toBeUndefined();
  });

  it('passes host variables by name, expands set_env, and lets the gateway URL and dummy key win over both', () => {
    const { env } = buildInvocation(input);
    expect(env).toEqual({
      HTTPS_PROXY: 'http://proxy:3128',
      CODEX_HOME: '/a/home/.codex',
      NOTE: 'model=gpt-5-mini url=http://127.0.0.1:4000/s/tok/openai/v1',
      OPENAI_BASE_URL: 'http://127.0.0.1:4000/s/tok/openai/v1',
      OPENAI_API_KEY: 'dummy',
      CODEX_API_KEY: 'dummy',
    });
    expect(JSON.stringify(env)).not.toContain('sk-real');
  });

  it('writes home files inside HOME with text placeholders expanded, and refuses a path that leaves HOME', () => {
    const [file] = buildInvocation(input).homeFiles;
    expect(file?.path).toBe('/a/home/.codex/config.toml');
    expect(file?.content).toBe(
      'model = "gpt-5-mini"\nbase_url = "http://127.0.0.1:4000/s/tok/openai/v1"\nkey = "dummy"\nrepo = "/a/workspace"\nliteral = "{task_prompt}"\n',
    );
    expect(() => buildInvocation({ ...input, profile: { ...profile, homeFiles: { '../escape': 'x' } } })).toThrow(/not inside HOME/);
    expect(() => buildInvocation({ ...input, profile: { ...profile, homeFiles: { '/etc/passwd': 'x' } } })).toThrow(/not inside HOME/);
  });
});

describe('versionArgv', () => {
  it('resolves the version command like command[0]: the same program, or a bin beside it', () => {
    expect(versionArgv(profile, input.argv0)).toEqual([input.argv0, '--version']);
    expect(versionArgv({ ...profile, versionCommand: ['codex-version'] }, input.argv0)).toEqual(['/cache/agents/codex/node_modules/.bin/codex-version']);
    expect(versionArgv({ ...profile, versionCommand: undefined }, input.argv0)).toBeUndefined();
  });
});
