import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { atifProblems, type AtifTrajectory } from '../../src/features/report/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const CASSETTES = resolve('examples/cassettes/quickstart');
const NO_KEYS = { OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined };
const validate = new Ajv2020({ allErrors: true, strict: false, validateFormats: false }).compile(
  JSON.parse(readFileSync('test/fixtures/atif/atif-v1.7.schema.json', 'utf8')) as object,
);

describe('ATIF out and in, through the CLI', () => {
  it(
    "export --format atif writes a replayed model attempt's trajectory as valid ATIF, and show draws it back",
    async () => {
      const out = tempDir();
      const run = await runCli(
        [
          'run',
          'examples/tasks.yaml',
          '--model',
          'openai:gpt-4.1-mini',
          '--replay',
          CASSETTES,
          '--task',
          'js-slugify',
          '--sandbox',
          'local',
          '-q',
          '--out',
          out,
        ],
        {
          env: NO_KEYS,
          attempts: 1,
        },
      );
      expect(run.status, run.stderr).toBe(0);
      const [runId] = readdirSync(join(out, 'runs'));
      const dir = join(out, 'atif');
      const exported = await runCli(['export', runId as string, '--format', 'atif', '--dir', dir, '--out', out]);
      expect(exported.status, exported.stderr).toBe(0);
      const files = readdirSync(dir);
      expect(files).toHaveLength(1);
      const file = join(dir, files[0] as string);
      const doc = JSON.parse(readFileSync(file, 'utf8')) as AtifTrajectory;
      expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
      expect(atifProblems(doc)).toEqual([]);
      expect(`${doc.session_id}.json`).toBe(files[0]);
      expect(doc.agent.name).toBe('openai:gpt-4.1-mini');
      const calls = doc.steps.flatMap((s) => s.tool_calls ?? []);
      const results = doc.steps.flatMap((s) => s.observation?.results ?? []);
      expect(calls.length).toBeGreaterThan(0);
      expect(results.map((r) => r.source_call_id).sort()).toEqual(calls.map((c) => c.tool_call_id).sort());
      expect(doc.final_metrics?.total_cost_usd).toBeGreaterThan(0);

      const shown = await runCli(['show', file]);
      expect(shown.status, shown.stderr).toBe(0);
      expect(shown.stderr).toBe('');
      expect(shown.stdout).toContain(`ATIF-v1.7 trajectory ${doc.session_id}`);
      // The instruction (the user step), its head as the timeline's one line shows it.
      expect(shown.stdout).toContain(`user: ${(doc.steps[1]?.message as string).replace(/\s+/g, ' ').trim().slice(0, 60)}`);
      for (const c of calls) expect(shown.stdout).toContain(`→ ${c.function_name}`);
    },
    attemptBudget(1 + 2),
  );

  it('show refuses a JSON file that is not an ATIF trajectory, in one line naming it', async () => {
    const file = join(tempDir(), 'not-atif.json');
    writeFileSync(file, '{"schema_version": 2, "steps": []}\n');
    const shown = await runCli(['show', file]);
    expect(shown.status).toBe(2);
    expect(shown.stderr.trim().split('\n')).toHaveLength(1);
    expect(shown.stderr).toContain(`${file}: not an ATIF trajectory`);
  });
});
