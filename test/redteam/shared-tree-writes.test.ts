/**
 * Every attempt of a task starts from the task's one prepared tree, and every test run's tree is
 * an overlay of it (src/domain/evaluation/give-tree.ts). An agent and code under test that write
 * a mark of their own through every path they can reach (each file appended to, each writable
 * directory given a file, deletions) must leave that tree as it was: with three attempts, two at a
 * time, no agent and no test run ever finds a mark another one left.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExternalAgent } from '../../src/domain/agents/external/agent.js';
import type { AgentProfile } from '../../src/domain/agents/external/profile.js';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { executeRun } from '../../src/engine/index.js';
import type { AttemptResult } from '../../src/core/types/index.js';

/**
 * Looks for marks others left (an agent: any; a test run: a test run's, since the change it tests
 * holds its agent's), then marks everything writable. A test run reports `clean` (no foreign mark)
 * and `fixed` (the agent ran and saw no foreign mark) as JUnit.
 */
const SCOUR = `#!/bin/sh
role=$1
me="MARK-$role-$(od -An -N6 -tu8 /dev/urandom | tr -d ' ')"
if [ "$role" = agent ]; then pattern=MARK-; else pattern=MARK-test-; fi
found=$(grep -rlI -e "$pattern" --exclude=scour.sh . 2>/dev/null | head -3 | tr '\\n' ' ')
find / \\( -path /proc -o -path /sys -o -path /dev \\) -prune -o -writable -print 2>/dev/null | head -n 5000 > /tmp/writable.$$
while IFS= read -r p; do
  case "$p" in */scour.sh|./seen.txt|./fixed.txt|*/seen.txt|*/fixed.txt|/tmp/writable.*) continue ;; esac
  if [ -d "$p" ]; then echo "$me" > "$p/.mark-$$" 2>/dev/null; elif [ -f "$p" ]; then echo "$me" >> "$p" 2>/dev/null; fi
done < /tmp/writable.$$
# What it saw goes last, past the marking, so no mark lands in it.
if [ "$role" = agent ]; then
  echo "\${found:-clean}" > seen.txt
  echo fixed > fixed.txt
else
  clean=""; fixed=""
  [ -n "$found" ] && clean="<failure message=\\"saw $found\\"/>"
  [ "$(head -n 1 seen.txt 2>/dev/null)" = clean ] || fixed="<failure message=\\"agent: $(head -n 1 seen.txt 2>/dev/null)\\"/>"
  printf '<testsuite><testcase classname="scour" name="clean">%s</testcase><testcase classname="scour" name="fixed">%s</testcase></testsuite>' "$clean" "$fixed" > "$CRUCIBLE_JUNIT"
fi
rm -rf ./deleted-by-every-run 2>/dev/null
exit 0
`;

let root = '';
let attempts: AttemptResult[] = [];
let stateDir = '';

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'crucible-redteam-shared-tree-'));
  const repo = join(root, 'repo');
  mkdirSync(join(repo, 'src', 'deep'), { recursive: true });
  mkdirSync(join(repo, 'deleted-by-every-run'), { recursive: true });
  writeFileSync(join(repo, 'scour.sh'), SCOUR);
  writeFileSync(join(repo, 'src', 'a.txt'), 'a\n');
  writeFileSync(join(repo, 'src', 'deep', 'b.txt'), 'b\n');
  writeFileSync(join(repo, 'deleted-by-every-run', 'c.txt'), 'c\n');
  const taskFile = join(root, 'tasks.yaml');
  writeFileSync(
    taskFile,
    'tasks:\n  - id: scour\n    repo: { path: repo }\n    instruction: mark everything\n    tests:\n      command: sh scour.sh test\n      fail_to_pass: ["scour::fixed"]\n      pass_to_pass: ["scour::clean"]\n',
  );
  const agentDir = join(root, 'agent');
  mkdirSync(agentDir);
  const program = join(agentDir, 'scour-agent');
  writeFileSync(program, '#!/bin/sh\nexec sh ./scour.sh agent\n');
  chmodSync(program, 0o755);
  const profile: AgentProfile = {
    name: 'scour',
    commandPath: program,
    command: ['scour-agent'],
    stdin: 'none',
    env: [],
    setEnv: {},
    homeFiles: {},
    model: 'gpt-4.1-mini',
    protocol: { kind: 'openai-chat', baseUrlEnv: ['OPENAI_BASE_URL'], apiKeyEnv: ['OPENAI_API_KEY'] },
    output: 'text',
    source: join(agentDir, 'agents.yaml'),
  };
  stateDir = join(root, 'state');
  const outcome = await executeRun({
    taskSetFile: taskFile,
    tasks: loadTaskSet(taskFile).tasks,
    agents: ['scour'],
    trials: 3,
    stateDir,
    settings: { sandbox: 'bwrap' },
    concurrency: 2,
    resolveAgent: (spec) => createExternalAgent(profile, undefined, spec),
    // The program never calls it: the gateway is there because every external agent gets one.
    models: { baseUrl: 'http://127.0.0.1:9/v1', env: { OPENAI_API_KEY: 'sk-unused' } },
  });
  attempts = outcome.attempts;
}, 1_200_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('an agent and code under test writing through every path they reach (bwrap, 3 attempts, 2 at a time)', () => {
  it('every test run was given an overlay of the shared tree', () => {
    expect(attempts).toHaveLength(3);
    expect(attempts.map((a) => [a.tests?.tree, a.baselineTests?.tree])).toEqual(Array(3).fill(['kernel-overlay', 'kernel-overlay']));
  });

  it('every agent worked in an overlay of the shared tree, held for its attempt', () => {
    expect(attempts.map((a) => a.workspace)).toEqual(Array(3).fill('kernel-overlay'));
  });

  it('no agent and no test run saw a mark another left: every attempt passes', () => {
    expect(attempts.map((a) => `${a.verdict} ${a.message}`)).toEqual(Array(3).fill(expect.stringMatching(/^PASS /)));
  });

  it("each attempt's change holds its own agent's mark alone", () => {
    for (const attempt of attempts) {
      const patch = readFileSync(join(stateDir, 'runs', attempt.runId, 'attempts', attempt.attemptId, 'diff.patch'), 'utf8');
      expect(new Set(patch.match(/MARK-agent-\d+/g) ?? []).size).toBe(1);
      expect(patch).not.toMatch(/MARK-test-/);
    }
  });
});
