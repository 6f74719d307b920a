// TLS clients for the tests of this folder: an HTTPS request (node:https) and a bare handshake that
// reports the certificate the server presents.
import { request as httpsRequest } from 'node:https';
import { connect as tlsConnect } from 'node:tls';

/** an HTTPS request trusting the test CA; JSON out */
export function httpsJson(
  port: number,
  path: string,
  opts: { ca?: string; method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `ModeCloud ${opts.token}`;
    if (body) headers['content-type'] = 'application/json';
    const req = httpsRequest({ host: '127.0.0.1', port, path, method: opts.method ?? 'GET', ca: opts.ca, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** the certificate the server presents to a new handshake (sha256 fingerprint) */
export function presented(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tlsConnect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, () => {
      const fp = s.getPeerCertificate().fingerprint256;
      s.destroy();
      resolve(fp);
    });
    s.on('error', reject);
  });
}
