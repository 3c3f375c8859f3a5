import { InputError } from '../../../core/errors.js';
import type { UpstreamAuth, UpstreamConfig } from '../../../infra/gateway/index.js';

/**
 * What `--model <provider>:<model>` means: which gateway upstream the traffic goes to, in which
 * wire format, and which environment variable holds the key. No AI SDK import here, so the CLI and
 * the engine can check specs and keys without loading any provider package.
 */
export type ProviderName =
  'openai' | 'anthropic' | 'google' | 'gemini' | 'groq' | 'ollama' | 'openai-compatible' | 'bedrock' | 'azure' | 'vertex' | 'openrouter';

export interface ModelSpec {
  /** As the user wrote it, e.g. `openai:gpt-4.1-mini`; the agent's name in reports. */
  spec: string;
  provider: ProviderName;
  /** The provider's model id, e.g. `gpt-4.1-mini` or `meta-llama/Llama-3.3-70B-Instruct`. */
  modelId: string;
}

interface ProviderInfo {
  /** The wire format the gateway meters it in. */
  kind: UpstreamConfig['kind'];
  /** Default upstream base URL (the form the gateway's UpstreamConfig takes); undefined: --base-url is required. */
  baseUrl?: (env: Env) => string;
  /** Key variables, first match wins; the first is the one named when none is set. */
  keyEnv: string[];
  /** True when the provider works without a key (local servers, or credentials found another way). */
  keyOptional?: boolean;
  /**
   * Variables the default base URL is built from (a region, a resource name), each with the
   * alternatives that may stand in for it; all are needed unless --base-url is given.
   */
  urlEnv?: string[][];
  /** How the gateway authenticates when not with the key variable alone (AWS SigV4, Google ADC). */
  auth?: (env: Env, keyEnv: string | undefined) => UpstreamAuth | undefined;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * `google` goes through Gemini's OpenAI-compatible endpoint (Chat Completions), which the AI SDK's
 * openai-compatible provider speaks, so the built-in agent can use it. `gemini` is Gemini's own
 * protocol (`/v1beta/models/<model>:generateContent`), for external agents such as Gemini CLI.
 */
export const PROVIDERS: Record<ProviderName, ProviderInfo> = {
  openai: { kind: 'openai', baseUrl: () => 'https://api.openai.com/v1', keyEnv: ['OPENAI_API_KEY'] },
  anthropic: { kind: 'anthropic', baseUrl: () => 'https://api.anthropic.com', keyEnv: ['ANTHROPIC_API_KEY'] },
  google: {
    kind: 'openai',
    baseUrl: () => 'https://generativelanguage.googleapis.com/v1beta/openai',
    keyEnv: ['GOOGLE_GENERATIVE_AI_API_KEY', 'GEMINI_API_KEY'],
  },
  gemini: { kind: 'gemini', baseUrl: () => 'https://generativelanguage.googleapis.com', keyEnv: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'] },
  groq: { kind: 'openai', baseUrl: () => 'https://api.groq.com/openai/v1', keyEnv: ['GROQ_API_KEY'] },
  ollama: { kind: 'openai', baseUrl: (env) => `${ollamaHost(env)}/v1`, keyEnv: [], keyOptional: true },
  'openai-compatible': { kind: 'openai', keyEnv: ['OPENAI_COMPATIBLE_API_KEY'], keyOptional: true },
  // A Bedrock API key when there is one; else the AWS access key pair, and the gateway signs (SigV4).
  bedrock: {
    kind: 'bedrock',
    baseUrl: (env) => `https://bedrock-runtime.${awsRegion(env)}.amazonaws.com`,
    keyEnv: ['AWS_BEARER_TOKEN_BEDROCK', 'AWS_ACCESS_KEY_ID'],
    urlEnv: [['AWS_REGION', 'AWS_DEFAULT_REGION']],
    auth: (env, keyEnv) => (keyEnv === 'AWS_ACCESS_KEY_ID' ? { scheme: 'aws-sigv4', region: awsRegion(env), service: 'bedrock' } : undefined),
  },
  // Azure OpenAI's v1 API (no api-version), the deployment name as the model; the key in `api-key`.
  azure: {
    kind: 'openai',
    baseUrl: (env) => `https://${env['AZURE_RESOURCE_NAME'] ?? ''}.openai.azure.com/openai/v1`,
    keyEnv: ['AZURE_API_KEY'],
    urlEnv: [['AZURE_RESOURCE_NAME']],
    auth: () => ({ scheme: 'api-key' }),
  },
  // Gemini on Vertex AI; the gateway's token comes from Application Default Credentials.
  vertex: {
    kind: 'vertex',
    baseUrl: (env) => vertexBaseUrl(env['GOOGLE_VERTEX_PROJECT'] ?? '', env['GOOGLE_VERTEX_LOCATION'] ?? ''),
    keyEnv: ['GOOGLE_APPLICATION_CREDENTIALS'],
    keyOptional: true,
    urlEnv: [['GOOGLE_VERTEX_PROJECT'], ['GOOGLE_VERTEX_LOCATION']],
    auth: () => ({ scheme: 'google-adc' }),
  },
  openrouter: { kind: 'openai', baseUrl: () => 'https://openrouter.ai/api/v1', keyEnv: ['OPENROUTER_API_KEY'] },
};

/** AWS_REGION as the AWS SDKs read it (AWS_DEFAULT_REGION as the CLI's older name). */
function awsRegion(env: Env): string {
  return env['AWS_REGION'] || env['AWS_DEFAULT_REGION'] || '';
}

/** The project's location on Vertex AI, hosted as the AI SDK does (`global` has no region prefix). */
function vertexBaseUrl(project: string, location: string): string {
  const host =
    location === 'global'
      ? 'aiplatform.googleapis.com'
      : location === 'eu' || location === 'us'
        ? `aiplatform.${location}.rep.googleapis.com`
        : `${location}-aiplatform.googleapis.com`;
  return `https://${host}/v1/projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(location)}`;
}

const SPEC = /^([a-z][a-z-]*):(\S+)$/;

export function isModelSpec(spec: string): boolean {
  const match = SPEC.exec(spec);
  return match !== null && (match[1] as string) in PROVIDERS;
}

export function parseModelSpec(spec: string): ModelSpec {
  const match = SPEC.exec(spec);
  const provider = match?.[1];
  if (!match || provider === undefined || !(provider in PROVIDERS)) {
    throw new InputError(
      `--model ${spec}: expected <provider>:<model> with provider one of ${Object.keys(PROVIDERS).join(', ')} (fix: e.g. --model openai:gpt-4.1-mini)`,
    );
  }
  return { spec, provider: provider as ProviderName, modelId: match[2] as string };
}

/** `OLLAMA_HOST` as Ollama itself reads it (`host:port`, scheme optional), else localhost:11434. */
export function ollamaHost(env: Env): string {
  const raw = (env['OLLAMA_HOST'] ?? '').trim() || '127.0.0.1:11434';
  const withScheme = /^[a-z]+:\/\//i.test(raw) ? raw : `http://${raw}`;
  // 0.0.0.0 is where a server listens, not an address to connect to.
  return withScheme.replace('://0.0.0.0', '://127.0.0.1').replace(/\/+$/, '');
}

/** The variable that holds the provider's key in `env`, or undefined when none is set. */
export function keyVariable(provider: ProviderName, env: Env): string | undefined {
  return PROVIDERS[provider].keyEnv.find((name) => (env[name] ?? '') !== '');
}

export interface UpstreamPlan {
  /** Gateway upstream name; also the key of the agent's base URL. */
  name: ProviderName;
  config: UpstreamConfig;
}

/**
 * The gateway upstream for a provider. `baseUrl` (from --base-url) replaces the default; a missing
 * key is an InputError naming the variable, except when replaying (nothing is sent upstream then).
 */
export function upstreamFor(provider: ProviderName, options: { env: Env; baseUrl?: string; replay: boolean; spec: string }): UpstreamPlan {
  const info = PROVIDERS[provider];
  const unset = (info.urlEnv ?? []).find((names) => names.every((name) => (options.env[name] ?? '') === ''));
  // SigV4 signs for a region whatever the URL, so Bedrock's is needed with --base-url too.
  const regionForSigning = provider === 'bedrock' && keyVariable(provider, options.env) === 'AWS_ACCESS_KEY_ID';
  if (unset && !options.replay && (options.baseUrl === undefined || regionForSigning)) {
    const [first, ...others] = unset as [string, ...string[]];
    const alternatives = others.length > 0 ? ` (or ${others.join(', ')})` : '';
    throw new InputError(
      `${flagOf(options.spec)} ${options.spec}: ${provider} needs ${first}${alternatives} (fix: export ${first}=<value>; see docs/providers.md)`,
    );
  }
  let baseUrl = options.baseUrl ?? (unset ? undefined : info.baseUrl?.(options.env)) ?? (options.replay ? 'http://replay.invalid/v1' : undefined);
  if (baseUrl === undefined) {
    throw new InputError(`${flagOf(options.spec)} ${options.spec}: ${provider} needs --base-url (fix: e.g. --base-url http://127.0.0.1:8000/v1 for vLLM)`);
  }
  // The gateway takes Anthropic's and Gemini's base without the version segment SDKs put on it.
  if (info.kind === 'anthropic') baseUrl = baseUrl.replace(/\/v1\/?$/, '');
  if (info.kind === 'gemini') baseUrl = baseUrl.replace(/\/v1(?:alpha|beta)?\/?$/, '');
  const keyEnv = keyVariable(provider, options.env);
  if (keyEnv === undefined && !options.replay && !info.keyOptional) {
    const [first, ...others] = info.keyEnv;
    const alternatives = others.length > 0 ? ` (or ${others.join(', ')})` : '';
    throw new InputError(
      `${flagOf(options.spec)} ${options.spec}: ${first}${alternatives} is not set (fix: export ${first}=<your key>, or replay a cassette with --replay DIR)`,
    );
  }
  const auth = info.auth?.(options.env, keyEnv);
  // With SigV4 or Google ADC no single variable is the key sent.
  const apiKeyEnv = auth?.scheme === 'aws-sigv4' || auth?.scheme === 'google-adc' ? undefined : keyEnv;
  if (auth?.scheme === 'aws-sigv4' && (options.env['AWS_SECRET_ACCESS_KEY'] ?? '') === '' && !options.replay) {
    throw new InputError(
      `${flagOf(options.spec)} ${options.spec}: AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not (fix: export both, or AWS_BEARER_TOKEN_BEDROCK)`,
    );
  }
  return { name: provider, config: { kind: info.kind, baseUrl, ...(apiKeyEnv ? { apiKeyEnv } : {}), ...(auth ? { auth } : {}) } };
}

/** The flag a spec came from: `--model` for provider:model, `--agent` for an external agent's profile. */
function flagOf(spec: string): string {
  return isModelSpec(spec) ? '--model' : '--agent';
}
