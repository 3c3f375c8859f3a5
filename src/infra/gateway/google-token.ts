/**
 * Google OAuth access tokens for Vertex AI, from Application Default Credentials: the file
 * GOOGLE_APPLICATION_CREDENTIALS names (service account, workload identity federation), else
 * gcloud's `application-default login`, else the metadata server. google-auth-library caches each
 * token and refreshes it before it expires; it is loaded only when a Vertex upstream is used.
 */
import type { GoogleAuth } from 'google-auth-library';

const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/** One client per credentials file, so a token is minted once and reused across requests. */
const clients = new Map<string, Promise<GoogleAuth>>();

export async function googleAccessToken(env: Readonly<Record<string, string | undefined>>): Promise<string> {
  const keyFile = env['GOOGLE_APPLICATION_CREDENTIALS'] || undefined;
  let client = clients.get(keyFile ?? '');
  if (client === undefined) {
    client = import('google-auth-library').then(({ GoogleAuth }) => new GoogleAuth({ scopes: [SCOPE], ...(keyFile ? { keyFilename: keyFile } : {}) }));
    clients.set(keyFile ?? '', client);
  }
  const token = await (await client).getAccessToken();
  if (!token) throw new Error('Google Application Default Credentials gave no access token');
  return token;
}
