/**
 * Attacks on the model gateway: requests an agent inside the sandbox can send to its gateway
 * session to reach the provider unmetered or past its limits, or to be served another model than
 * the attempt's. They are requests, not sandbox programs, so they are not in ATTACKS (which
 * `validate --adversarial` runs on a task set): test/redteam/gateway-attacks.test.ts sends each to
 * a real gateway in front of a local upstream that counts what reaches it, and
 * test/engine/external-agent.test.ts sends some from a sandboxed external agent. docs/redteam.md
 * lists them.
 */
import type { RefusalReason } from '../../infra/gateway/index.js';

export type GatewayAttackClass =
  /** Honest requests, which must be served. */
  | 'honest'
  /** A path the router and the upstream's URL parser would read differently, or a route not metered. */
  | 'unmetered-request'
  /** A request for another model than the attempt's. */
  | 'other-model';

export interface GatewayAttack {
  name: string;
  class: GatewayAttackClass;
  description: string;
  /** The upstream name of the session URL (`openai`, `anthropic`, `gemini`). */
  upstream: 'openai' | 'anthropic' | 'gemini';
  method: 'GET' | 'POST' | 'DELETE';
  /** After the session's `/s/<token>/<upstream>`, exactly as sent on the wire. */
  path: string;
  /** The model named in the body; none for a GET or a Gemini path. */
  bodyModel?: string;
  /** Served (reaches the upstream once), or refused with this reason and status (reaches nothing). */
  expected: { served: true } | { refused: RefusalReason; status: number };
}

/** The model every attack session is pinned to, per upstream. */
export const GATEWAY_ATTACK_MODELS = { openai: 'gpt-4o-mini', anthropic: 'claude-sonnet-4-5', gemini: 'gemini-2.5-pro' } as const;

const refused = (reason: RefusalReason, status = 400): GatewayAttack['expected'] => ({ refused: reason, status });
const chat = (name: string, path: string, description: string, reason: RefusalReason, status = 400): GatewayAttack => ({
  name,
  class: 'unmetered-request',
  description,
  upstream: 'openai',
  method: 'POST',
  path,
  bodyModel: GATEWAY_ATTACK_MODELS.openai,
  expected: refused(reason, status),
});

export const GATEWAY_ATTACKS: readonly GatewayAttack[] = [
  {
    name: 'plain-chat',
    class: 'honest',
    description: "a Chat Completions request for the attempt's model",
    upstream: 'openai',
    method: 'POST',
    path: '/v1/chat/completions',
    bodyModel: GATEWAY_ATTACK_MODELS.openai,
    expected: { served: true },
  },
  {
    name: 'plain-messages-beta',
    class: 'honest',
    description: "Claude Code's /v1/messages?beta=true for the attempt's model",
    upstream: 'anthropic',
    method: 'POST',
    path: '/v1/messages?beta=true',
    bodyModel: GATEWAY_ATTACK_MODELS.anthropic,
    expected: { served: true },
  },
  {
    name: 'plain-models-list',
    class: 'honest',
    description: 'GET /v1/models, a side request',
    upstream: 'openai',
    method: 'GET',
    path: '/v1/models',
    expected: { served: true },
  },
  chat('dot-segment', '/v1/./chat/completions', 'a `.` segment, resolved away by the URL parser upstream', 'dot_segment'),
  chat('dot-dot-segment', '/v1/x/../chat/completions', 'a `..` segment after a made-up one', 'dot_segment'),
  chat('encoded-dot', '/v1/%2e/chat/completions', '`%2e`, a `.` once decoded', 'dot_segment'),
  chat('encoded-dot-dot', '/v1/x/%2E%2e/chat/completions', '`%2E%2e`, mixed case', 'dot_segment'),
  chat('half-encoded-dot-dot', '/v1/x/.%2e/chat/completions', '`.%2e`', 'dot_segment'),
  chat('dot-before-version', '/./v1/chat/completions', 'a `.` before the version segment', 'dot_segment'),
  chat('climb-out-of-session', '/../openai/v1/chat/completions', "`..` climbing out of the session's prefix", 'dot_segment'),
  chat('encoded-slash', '/v1/chat%2Fcompletions', '`%2F` inside a segment', 'encoded_separator'),
  chat('encoded-backslash', '/v1/chat%5ccompletions', '`%5c` inside a segment', 'encoded_separator'),
  chat('backslash', '/v1\\chat\\completions', 'backslashes, which a URL parser turns into `/`', 'bad_character'),
  chat('repeated-slash', '/v1//chat/completions', 'an empty segment', 'empty_segment'),
  chat('malformed-escape', '/v1/chat/completions%zz', 'a `%` not followed by two hex digits', 'bad_encoding'),
  chat('trailing-slash', '/v1/chat/completions/', 'a route the gateway does not meter', 'route_not_allowed', 404),
  chat('legacy-completions', '/v1/completions', 'the legacy Completions API, not metered', 'route_not_allowed', 404),
  chat('embeddings', '/v1/embeddings', 'an API the gateway does not meter', 'route_not_allowed', 404),
  {
    name: 'other-model-in-body',
    class: 'other-model',
    description: "a Chat Completions request for a dearer model than the attempt's",
    upstream: 'openai',
    method: 'POST',
    path: '/v1/chat/completions',
    bodyModel: 'gpt-4.1',
    expected: refused('model_not_allowed'),
  },
  {
    name: 'no-model',
    class: 'other-model',
    description: 'a request naming no model, which the upstream would answer with its default',
    upstream: 'openai',
    method: 'POST',
    path: '/v1/chat/completions',
    expected: refused('model_not_allowed'),
  },
  {
    name: 'other-model-in-gemini-path',
    class: 'other-model',
    description: 'a Gemini generateContent for another model, named in the path',
    upstream: 'gemini',
    method: 'POST',
    path: '/v1beta/models/gemini-2.5-flash:generateContent',
    expected: refused('model_not_allowed'),
  },
  {
    name: 'other-model-token-count',
    class: 'other-model',
    description: 'an Anthropic token count for another model',
    upstream: 'anthropic',
    method: 'POST',
    path: '/v1/messages/count_tokens',
    bodyModel: 'claude-opus-4-1',
    expected: refused('model_not_allowed'),
  },
];
