/**
 * The child's environment, built from nothing: inheriting process.env would hand an agent the
 * harness's API keys, tokens and CI secrets. Only what toolchains need to start is copied.
 */
export interface ChildEnvInput {
  /** The harness's environment; only PATH and PYENV_ROOT are read from it. */
  hostEnv: NodeJS.ProcessEnv;
  home: string;
  tmpdir: string;
  /** The request's variables, applied last so a caller can override the base. */
  requestEnv?: Record<string, string>;
}

const FALLBACK_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export function buildChildEnv(input: ChildEnvInput): Record<string, string> {
  const env: Record<string, string> = {
    // The host's PATH so that node, python, pyenv shims etc. resolve as they do for the user.
    PATH: input.hostEnv.PATH || FALLBACK_PATH,
    HOME: input.home,
    TMPDIR: input.tmpdir,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
  };
  // pyenv shims fail without their root, and the root cannot be derived from PATH reliably.
  const pyenvRoot = input.hostEnv.PYENV_ROOT;
  if (pyenvRoot) env.PYENV_ROOT = pyenvRoot;
  for (const [name, value] of Object.entries(input.requestEnv ?? {})) {
    assertValidVariable(name, value);
    env[name] = value;
  }
  return env;
}

function assertValidVariable(name: string, value: string): void {
  if (name === '' || name.includes('=') || name.includes('\0')) {
    throw new Error(`invalid environment variable name: ${JSON.stringify(name)}`);
  }
  if (value.includes('\0')) {
    throw new Error(`environment variable ${name} contains a NUL byte`);
  }
}
