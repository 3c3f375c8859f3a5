import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAgentsFile, loadBuiltinProfiles } from '../../../src/domain/agents/external/profile-load.js';
import { loadAgentCatalog, onlyReferenceAgents } from '../../../src/domain/agents/registry.js';
import { loadTaskSet } from '../../../src/domain/config/index.js';
import { ConfigError } from '../../../src/core/errors.js';
import { useTempDirs } from '../../helpers/tmp.js';

const tempDir = useTempDirs();

const GOOD = `  - name: my-agent
    package: my-agent-cli@1.2.3
    command: [my-agent, --print, '{task_prompt}']
    protocol: { kind: anthropic, base_url_env: [ANTHROPIC_BASE_URL], api_key_env: [ANTHROPIC_API_KEY] }
`;

function agentsFile(body: string): string {
  const file = join(tempDir(), 'agents.yaml');
  writeFileSync(file, `agents:\n${body}`);
  return file;
}

/** The one-line message of the error loading `body` throws; fails the test when it loads. */
function errorOf(body: string): string {
  const file = agentsFile(body);
  try {
    loadAgentsFile(file);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exitCode).toBe(2);
    const message = (error as Error).message;
    expect(message.startsWith(`${file}:`)).toBe(true);
    expect(message).not.toContain('\n');
    return message.slice(file.length);
  }
  throw new Error('expected the profile to be rejected');
}

describe('agent profile schema', () => {
  it('reads a profile into the AgentProfile contract, with defaults', () => {
    const [loaded] = loadAgentsFile(agentsFile(GOOD));
    expect(loaded?.profile).toMatchObject({
      name: 'my-agent',
      package: 'my-agent-cli@1.2.3',
      command: ['my-agent', '--print', '{task_prompt}'],
      stdin: 'none',
      env: [],
      setEnv: {},
      homeFiles: {},
      output: 'text',
      protocol: { kind: 'anthropic', baseUrlEnv: ['ANTHROPIC_BASE_URL'], apiKeyEnv: ['ANTHROPIC_API_KEY'] },
    });
  });

  it('an unknown field is an error with the near match', () => {
    expect(errorOf(GOOD + '    set_evn: { A: b }\n')).toMatch(/^:6:\d+: agents\[0\]\.set_evn: unknown field "set_evn" \(fix: did you mean "set_env"\?\)$/);
  });

  it('a placeholder inside a longer argv item names the item and how to split it', () => {
    const body = GOOD.replace("[my-agent, --print, '{task_prompt}']", "[my-agent, --print, '--prompt={task_prompt}']");
    expect(errorOf(body)).toMatch(
      /agents\[0\]\.command\[2\]: \{task_prompt\} is inside "--prompt=\{task_prompt\}"; a placeholder must be a whole item \(fix: split it into two items: "--prompt", "\{task_prompt\}"\)/,
    );
  });

  it('an unknown placeholder is an error listing the allowed ones', () => {
    const body = GOOD.replace("'{task_prompt}'", "'{prompt}'");
    expect(errorOf(body)).toMatch(
      /agents\[0\]\.command\[2\]: unknown placeholder \{prompt\} \(fix: placeholders here are one of \{task_prompt\}, \{task_file\}, \{repo_dir\}, \{model\}\)/,
    );
    expect(errorOf(GOOD + "    set_env: { MODEL: '{modle}' }\n")).toMatch(/agents\[0\]\.set_env\.MODEL: unknown placeholder \{modle\}/);
  });

  it('package and command_path together, or neither, is an error', () => {
    expect(errorOf(GOOD + '    command_path: ./bin/agent\n')).toMatch(
      /agents\[0\]\.command_path: package and command_path cannot be used together \(fix: keep one/,
    );
    expect(errorOf(GOOD.replace('    package: my-agent-cli@1.2.3\n', ''))).toMatch(/agents\[0\]: needs package or command_path/);
  });

  it('a package not pinned to one exact version is an error', () => {
    for (const spec of ['my-agent-cli@^1.2.3', 'my-agent-cli@latest', 'my-agent-cli', '"@scope/cli@1.x"']) {
      expect(errorOf(GOOD.replace('my-agent-cli@1.2.3', spec))).toMatch(
        /agents\[0\]\.package: ".*" is not pinned to an exact version \(fix: write one version/,
      );
    }
    expect(() => loadAgentsFile(agentsFile(GOOD.replace('my-agent-cli@1.2.3', '"@scope/cli@1.2.3-beta.1"')))).not.toThrow();
  });

  it('a name taken by a provider, a reference agent or another profile is an error', () => {
    expect(errorOf(GOOD.replace('name: my-agent', 'name: anthropic'))).toMatch(/agents\[0\]\.name: "anthropic" is already an agent or provider name/);
    expect(errorOf(GOOD.replace('name: my-agent', 'name: gemini'))).toMatch(/agents\[0\]\.name: "gemini" is already/);
    expect(errorOf(GOOD + GOOD)).toMatch(/agents\[1\]\.name: duplicate agent name "my-agent" \(also agents\[0\]\)/);
    expect(errorOf(GOOD.replace('name: my-agent', 'name: My_Agent'))).toMatch(/agents\[0\]\.name: .*lowercase/);
    const file = agentsFile(GOOD.replace('name: my-agent', 'name: oracle'));
    expect(() => loadAgentCatalog({ agentsFile: file, builtinDir: tempDir() })).toThrow(/agents\[0\]\.name: "oracle" is already an agent or provider name/);
  });

  it('home_files stay inside HOME, env names are identifiers, enums are enums', () => {
    expect(errorOf(GOOD + "    home_files: { '../.ssh/config': x }\n")).toMatch(/agents\[0\]\.home_files\.\.\.\/\.ssh\/config: must stay inside HOME/);
    expect(errorOf(GOOD + "    home_files: { '/etc/passwd': x }\n")).toMatch(/must stay inside HOME/);
    expect(errorOf(GOOD + '    env: [HOME-DIR]\n')).toMatch(/agents\[0\]\.env\[0\]: not a valid environment variable name/);
    expect(errorOf(GOOD + '    stdin: file\n')).toMatch(/agents\[0\]\.stdin: .*\(fix: use one of: none, prompt\)/);
    expect(errorOf(GOOD + '    output: json\n')).toMatch(/agents\[0\]\.output: .*claude-stream-json, codex-json, gemini-json, text/);
    expect(errorOf(GOOD.replace('kind: anthropic', 'kind: openai'))).toMatch(/agents\[0\]\.protocol\.kind: .*anthropic, openai-responses, openai-chat, gemini/);
  });

  it('passing a real key variable through env is an error', () => {
    expect(errorOf(GOOD + '    env: [PATH, ANTHROPIC_API_KEY]\n')).toMatch(
      /agents\[0\]\.env\[1\]: passing ANTHROPIC_API_KEY through would give the agent the real key/,
    );
  });

  it('command_path and tarball packages resolve against the file, not the working directory', () => {
    const file = agentsFile(GOOD.replace('package: my-agent-cli@1.2.3', 'command_path: bin/agent'));
    expect(loadAgentsFile(file)[0]?.profile.commandPath).toBe(join(file, '..', 'bin', 'agent'));
    const tarball = agentsFile(GOOD.replace('package: my-agent-cli@1.2.3', 'package: pkgs/my-agent-1.0.0.tgz'));
    expect(loadAgentsFile(tarball)[0]?.profile.package).toBe(join(tarball, '..', 'pkgs', 'my-agent-1.0.0.tgz'));
  });
});

describe('profile sources', () => {
  function builtins(): string {
    const dir = join(tempDir(), 'profiles');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'my-agent.yaml'),
      GOOD.replace(/^ {2}- /, '')
        .replace(/^ {4}/gm, '')
        .replace('my-agent-cli@1.2.3', 'my-agent-cli@1.0.0'),
    );
    writeFileSync(
      join(dir, 'other.yaml'),
      GOOD.replace(/^ {2}- /, '')
        .replace(/^ {4}/gm, '')
        .replace('name: my-agent', 'name: other'),
    );
    return dir;
  }

  it('a built-in profile file holds one profile named like the file', () => {
    const dir = builtins();
    expect(loadBuiltinProfiles(dir).map((l) => [l.profile.name, l.profile.source])).toEqual([
      ['my-agent', 'builtin'],
      ['other', 'builtin'],
    ]);
    writeFileSync(
      join(dir, 'wrong.yaml'),
      GOOD.replace(/^ {2}- /, '')
        .replace(/^ {4}/gm, '')
        .replace('name: my-agent', 'name: right'),
    );
    expect(() => loadBuiltinProfiles(dir)).toThrow(/wrong\.yaml:1:\d+: name: "right" differs from the file name \(fix: name it wrong/);
  });

  it('the task set overrides built-ins by name, and --agents FILE overrides both', () => {
    const dir = tempDir();
    const taskSet = join(dir, 'tasks.yaml');
    writeFileSync(
      taskSet,
      `agents:\n${GOOD.replace('my-agent-cli@1.2.3', 'my-agent-cli@2.0.0')}tasks:\n  - id: t\n    repo: { path: . }\n    instruction: x\n    tests: { command: 'true', fail_to_pass: [a] }\n`,
    );
    const loaded = loadTaskSet(taskSet);
    const file = agentsFile(GOOD.replace('my-agent-cli@1.2.3', 'my-agent-cli@3.0.0'));
    const builtinDir = builtins();

    const onlyBuiltin = loadAgentCatalog({ builtinDir });
    expect(onlyBuiltin.profiles.get('my-agent')?.package).toBe('my-agent-cli@1.0.0');

    const withTaskSet = loadAgentCatalog({ builtinDir, taskSet: loaded.agents });
    expect(withTaskSet.profiles.get('my-agent')?.package).toBe('my-agent-cli@2.0.0');
    expect(withTaskSet.overrides.get('my-agent')).toEqual(['builtin']);

    const all = loadAgentCatalog({ builtinDir, taskSet: loaded.agents, agentsFile: file });
    expect(all.profiles.get('my-agent')?.package).toBe('my-agent-cli@3.0.0');
    expect(all.profiles.get('my-agent')?.source).toBe(file);
    expect(all.overrides.get('my-agent')).toEqual(['builtin', taskSet]);
    expect(all.profiles.get('other')?.source).toBe('builtin');
  });

  it('a run of reference agents alone reads no built-in profile, and still reads the task set and --agents FILE', () => {
    expect(onlyReferenceAgents(['nop', 'oracle'])).toBe(true);
    expect(onlyReferenceAgents(['nop', 'my-agent'])).toBe(false);
    expect(onlyReferenceAgents(['openai:gpt-4.1-mini'])).toBe(false);
    expect(onlyReferenceAgents(['constructor'])).toBe(false);
    const builtinDir = builtins();
    // A built-in file the run would refuse: read, it throws; not read, it cannot.
    writeFileSync(join(builtinDir, 'broken.yaml'), 'name: [\n');
    expect(() => loadAgentCatalog({ builtinDir })).toThrow(/broken\.yaml/);
    const file = agentsFile(GOOD.replace('my-agent-cli@1.2.3', 'my-agent-cli@3.0.0'));
    const catalog = loadAgentCatalog({ builtinDir, agentsFile: file, builtin: false });
    expect([...catalog.profiles.keys()]).toEqual(['my-agent']);
    expect(catalog.profiles.get('my-agent')?.source).toBe(file);
    expect(() => loadAgentCatalog({ builtinDir, agentsFile: agentsFile(GOOD.replace('name: my-agent', 'name: oracle')), builtin: false })).toThrow(
      /"oracle" is already an agent/,
    );
  });

  it("a bad profile in a task set's agents: is an error naming the task set, line and field", () => {
    const dir = tempDir();
    const taskSet = join(dir, 'tasks.yaml');
    writeFileSync(
      taskSet,
      `tasks:\n  - id: t\n    repo: { path: . }\n    instruction: x\n    tests: { command: 'true', fail_to_pass: [a] }\nagents:\n${GOOD.replace("'{task_prompt}'", "'--p={task_prompt}'")}`,
    );
    expect(() => loadTaskSet(taskSet)).toThrow(`${taskSet}:9:`);
    expect(() => loadTaskSet(taskSet)).toThrow(/agents\[0\]\.command\[2\]: \{task_prompt\} is inside/);
  });

  it('an agents file with a misspelt top-level key says so', () => {
    const file = join(tempDir(), 'agents.yaml');
    writeFileSync(file, `agent:\n${GOOD}`);
    expect(() => loadAgentsFile(file)).toThrow(/expected a mapping with an `agents:` list/);
    writeFileSync(file, `agents:\n${GOOD}agnets: []\n`);
    expect(() => loadAgentsFile(file)).toThrow(/agnets: unknown field "agnets" \(fix: did you mean "agents"\?\)/);
  });
});
