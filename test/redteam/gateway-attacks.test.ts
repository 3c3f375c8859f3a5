import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_ATTACK_MODELS, GATEWAY_ATTACKS } from '../../src/domain/redteam/gateway.js';
import type { Gateway } from '../../src/infra/gateway/index.js';
import { startCountingUpstream, type CountingUpstream } from '../gateway/counting-upstream.js';
import type { FakeUpstream } from '../gateway/fake-upstream.js';
import { startTestGateway } from '../gateway/helpers.js';
import { rawRequest } from '../gateway/raw-request.js';

/*
 * Each gateway attack, sent on the wire as written, to a real gateway whose session is pinned to
 * the attack's upstream model, in front of a local upstream that counts every request reaching it
 * by any path. Honest requests are served once; every attack is refused with its reason, counted,
 * and reaches nothing.
 */

let upstream: CountingUpstream;
let gateway: Gateway;

beforeAll(async () => {
  upstream = await startCountingUpstream();
  gateway = await startTestGateway({ url: upstream.url } as FakeUpstream);
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

describe.each(GATEWAY_ATTACKS.map((a) => [a.name, a] as const))('gateway attack %s', (name, attack) => {
  it(`${attack.class}: ${attack.description}`, async () => {
    const id = `attack-${name}`;
    const { baseUrls } = gateway.openSession(id, { model: GATEWAY_ATTACK_MODELS[attack.upstream], budget: { maxRequests: 5 } });
    const prefix = new URL(baseUrls[attack.upstream] as string).pathname.replace(/\/v1$/, '');
    const before = upstream.received.length;
    const body = attack.method === 'GET' ? undefined : { ...(attack.bodyModel ? { model: attack.bodyModel } : {}), max_tokens: 10, messages: [] };
    const reply = await rawRequest(gateway.url, attack.method, `${prefix}${attack.path}`, body);
    const usage = gateway.usage(id);
    if ('served' in attack.expected) {
      expect(reply.status).toBe(200);
      expect(upstream.received.length - before).toBe(1);
      expect(usage.refused).toBeUndefined();
    } else {
      expect(reply.status).toBe(attack.expected.status);
      expect(upstream.received.length - before).toBe(0);
      expect(usage.refused?.reasons).toEqual({ [attack.expected.refused]: 1 });
      expect(usage.requests).toBe(0);
    }
  });
});
