import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isNode, LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { schemaError } from '../../core/input/index.js';
import type { Usage } from '../../core/types/index.js';

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  /** The model's documented largest output (reasoning included), in tokens: what the gateway reserves for a request that sets no limit. */
  maxOutput?: number;
}

export type TokenCounts = Pick<Usage, 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens'>;

export interface Pricing {
  /** Exact id first, then the id without a date or `-latest` suffix. */
  priceOf(model: string): ModelPrice | undefined;
  /** Undefined when the model, or a cache price the usage needs, is not in the table. */
  costOf(model: string, usage: TokenCounts): number | undefined;
}

export class PricingError extends Error {
  override name = 'PricingError';
}

const rate = z.number().nonnegative();
const modelPriceSchema = z.strictObject({
  input: rate,
  output: rate,
  cache_read: rate.optional(),
  cache_write: rate.optional(),
  max_output: z.number().int().positive().optional(),
});
const pricingFileSchema = z.record(z.string().min(1), z.record(z.string().min(1), modelPriceSchema));

const SNAPSHOT_SUFFIX = /-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$/;

/** The bundled table, then `overridePath` (same layout) whose entries win. */
export function loadPricing(overridePath?: string): Pricing {
  const table = readPricingFile(bundledPricingPath());
  if (overridePath !== undefined) {
    for (const [model, price] of readPricingFile(resolve(overridePath))) table.set(model, price);
  }
  return pricingFromTable(table);
}

export function pricingFromTable(table: ReadonlyMap<string, ModelPrice>): Pricing {
  const priceOf = (model: string): ModelPrice | undefined => table.get(model) ?? table.get(model.replace(SNAPSHOT_SUFFIX, ''));
  return {
    priceOf,
    costOf(model, usage) {
      const price = priceOf(model);
      if (!price) return undefined;
      const { cacheReadTokens, cacheWriteTokens } = usage;
      if (cacheReadTokens > 0 && price.cacheRead === undefined) return undefined;
      if (cacheWriteTokens > 0 && price.cacheWrite === undefined) return undefined;
      // More cached than input tokens is a contradiction the usage reader flags on the attempt; priced as none uncached.
      const uncachedInput = Math.max(0, usage.inputTokens - cacheReadTokens - cacheWriteTokens);
      const micro =
        uncachedInput * price.input + usage.outputTokens * price.output + cacheReadTokens * (price.cacheRead ?? 0) + cacheWriteTokens * (price.cacheWrite ?? 0);
      return micro / 1_000_000;
    },
  };
}

/** pricing.yaml sits at the package root, above both src/infra/gateway and dist/infra/gateway. */
export function bundledPricingPath(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth++) {
    const candidate = join(dir, 'pricing.yaml');
    if (existsSync(candidate) && existsSync(join(dir, 'package.json'))) return candidate;
    dir = dirname(dir);
  }
  throw new PricingError('bundled pricing.yaml not found above ' + fileURLToPath(import.meta.url));
}

const PRICING_FILE = {
  reference: 'docs/agents.md (a pricing file is <provider>: { <model>: { input, output, cache_read?, cache_write? } }, dollars per million tokens)',
};

function readPricingFile(file: string): Map<string, ModelPrice> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new PricingError(`${file}: cannot read pricing file (${(error as Error).message})`);
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  const firstYamlError = doc.errors[0];
  if (firstYamlError) {
    throw new PricingError(`${file}:${firstYamlError.linePos?.[0].line ?? '?'}: ${firstYamlError.message}`);
  }
  const parsed = pricingFileSchema.safeParse(doc.toJS() ?? {});
  if (!parsed.success) {
    const error = schemaError(file, text, pricingFileSchema, parsed.error.issues, PRICING_FILE);
    throw new PricingError(error.message);
  }
  const table = new Map<string, ModelPrice>();
  const providerOf = new Map<string, string>();
  for (const [provider, models] of Object.entries(parsed.data)) {
    for (const [model, p] of Object.entries(models)) {
      const earlier = providerOf.get(model);
      if (earlier !== undefined) {
        throw new PricingError(`${file}:${lineOf(doc, lineCounter, [provider, model])}: ${provider}.${model}: also listed under ${earlier}`);
      }
      providerOf.set(model, provider);
      table.set(model, {
        input: p.input,
        output: p.output,
        cacheRead: p.cache_read,
        cacheWrite: p.cache_write,
        ...(p.max_output !== undefined ? { maxOutput: p.max_output } : {}),
      });
    }
  }
  return table;
}

function lineOf(doc: ReturnType<typeof parseDocument>, lineCounter: LineCounter, path: string[]): number | '?' {
  // Walk up until a node exists (a missing field has no node of its own, its parent does).
  for (let depth = path.length; depth >= 0; depth--) {
    const node: unknown = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
    if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
  }
  return '?';
}
