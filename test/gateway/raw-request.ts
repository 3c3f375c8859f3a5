import { connect } from 'node:net';

/**
 * Sends a request line exactly as given, bytes and all: fetch and http.request normalise or refuse
 * the paths an attacker would send, so the gateway is tested with what goes on the wire.
 */
export function rawRequest(gatewayUrl: string, method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(gatewayUrl);
  const payload = body === undefined ? '' : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `${method} ${path} HTTP/1.1\r\nhost: ${hostname}:${port}\r\nconnection: close\r\ncontent-type: application/json\r\n` +
          `authorization: Bearer dummy-key\r\ncontent-length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`,
      );
    });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, text: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
  });
}
