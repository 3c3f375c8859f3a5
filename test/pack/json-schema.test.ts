import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { generateKey, loadIndex, loadTrustPolicy, packIndexJsonSchema, trustJsonSchema } from '../../src/features/pack/index.js';
import { registryJsonSchema } from '../../src/features/audit/index.js';
import { parse } from 'yaml';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'crucible-pack-schema-'));
afterAll(async () => rmSync(dir, { recursive: true, force: true }));
const ajv = new Ajv2020({ strict: false });

describe('JSON Schemas of the trust policy, the pack index and registry.yaml', () => {
  it('match the committed schema/*.schema.json (run `npm run build && npm run schema` to refresh), also as `crucible schema` prints them', async () => {
    expect(JSON.parse(readFileSync('schema/trust.schema.json', 'utf8'))).toEqual(trustJsonSchema());
    expect(JSON.parse(readFileSync('schema/pack-index.schema.json', 'utf8'))).toEqual(packIndexJsonSchema());
    expect(JSON.parse(readFileSync('schema/registry.schema.json', 'utf8'))).toEqual(registryJsonSchema());
    const printed = await runCli(['schema', 'pack-index']);
    expect(printed.status, printed.stderr).toBe(0);
    expect(JSON.parse(printed.stdout)).toEqual(packIndexJsonSchema());
  });

  it('a trust policy the loader accepts (with $schema) validates; an unknown field or a bad key id does not', async () => {
    const key = generateKey();
    const policy = { $schema: './trust.schema.json', trusted_keys: [{ id: key.id, name: 'bench team', public_key: key.publicPem }], required: 1 };
    const file = join(dir, 'trust.yaml');
    writeFileSync(file, stringify(policy));
    expect(loadTrustPolicy(file).trustedKeys).toEqual([key.id]);
    const validate = ajv.compile(trustJsonSchema());
    expect(validate(policy)).toBe(true);
    expect(validate({ ...policy, requried: 2 })).toBe(false);
    expect(validate({ trusted_keys: [{ id: 'not-hex', public_key: key.publicPem }] })).toBe(false);
  });

  it('a pack index the loader accepts (with $schema) validates; a missing sha256 does not', async () => {
    const entry = {
      name: 'bench',
      version: '1.0.0',
      path: 'bench-1.0.0.crucible.zip',
      sha256: 'a'.repeat(64),
      signatures: ['bench-1.0.0.crucible.zip.sig.json'],
    };
    const index = { $schema: './pack-index.schema.json', packs: [entry] };
    const file = join(dir, 'index.yaml');
    writeFileSync(file, stringify(index));
    expect(loadIndex(file).map((e) => `${e.name}@${e.version}`)).toEqual(['bench@1.0.0']);
    const validate = ajv.compile(packIndexJsonSchema());
    expect(validate(index)).toBe(true);
    expect(validate({ packs: [{ ...entry, sha256: undefined }] })).toBe(false);
  });

  it("the bundled examples' registry validates; a family without an id does not", async () => {
    const registry = parse(readFileSync('examples/registry.yaml', 'utf8')) as { families: Array<Record<string, unknown>> };
    const validate = ajv.compile(registryJsonSchema());
    expect(validate(registry), JSON.stringify(validate.errors)).toBe(true);
    const [first] = registry.families;
    expect(validate({ ...registry, families: [{ ...first, id: undefined }] })).toBe(false);
  });
});
