import { readCassette, startGateway, type CassetteKey, type ModelTurn, type SessionUsage } from '../../src/infra/gateway/index.js';
import { pricingFromTable } from '../../src/infra/gateway/pricing.js';

/** Never contacted: a replaying gateway answers from the cassette. */
const NOWHERE = 'http://127.0.0.1:9';

/**
 * A committed recording replayed through a real gateway, the way a run replays it: each recorded
 * request is sent again (its canonical fields are the body: what decides the answer), the gateway
 * serves the recorded answer, and what it recorded of the session comes back as a run would see it.
 */
export async function replayedTurns(cassetteDir: string, key: CassetteKey, file: string): Promise<{ turns: ModelTurn[]; usage: SessionUsage }> {
  const gateway = await startGateway({
    mode: 'replay',
    cassetteDir,
    upstreams: {
      openai: { kind: 'openai', baseUrl: `${NOWHERE}/v1` },
      anthropic: { kind: 'anthropic', baseUrl: NOWHERE },
      gemini: { kind: 'gemini', baseUrl: NOWHERE },
    },
    env: {},
    pricing: pricingFromTable(new Map()),
  });
  try {
    const session = gateway.openSession('replayed', { cassette: key });
    for (const exchange of readCassette(file).exchanges) {
      const { upstream, method, path, ...body } = exchange.request.canonical;
      const response = await fetch(`${gateway.url}/s/${session.token}/${upstream}${path}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: 'Bearer dummy', 'x-api-key': 'dummy', 'x-goog-api-key': 'dummy' },
        ...(method === 'GET' ? {} : { body: JSON.stringify('body' in body ? body['body'] : body) }),
      });
      await response.arrayBuffer();
    }
    gateway.closeSession('replayed');
    return { turns: gateway.turns('replayed'), usage: gateway.usage('replayed') };
  } finally {
    await gateway.close();
  }
}
