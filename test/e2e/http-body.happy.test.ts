// Request bodies over a real socket: the API reads a body with a Content-Length straight from the
// Node request (src/http/request-body.ts) and a streamed one through Hono's Request. Both must give
// the text Body#text gives (UTF-8, a leading BOM dropped, malformed bytes as U+FFFD), whatever
// chunks the body arrives in.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHearth, type TestHearth } from '../helpers/hearth.js';

/** one request whose body is written as the given chunks; `streamed`: chunked, no Content-Length */
function send(
  h: TestHearth,
  method: string,
  path: string,
  chunks: Buffer[],
  o: { streamed?: boolean; type?: string } = {},
): Promise<{ status: number; body: string }> {
  const length = chunks.reduce((n, b) => n + b.length, 0);
  const headers: Record<string, string | number> = { authorization: `ModeCloud ${h.adminKey}`, 'content-type': o.type ?? 'application/json' };
  if (!o.streamed) headers['content-length'] = length;
  return new Promise((resolve, reject) => {
    const req = request(`${h.httpUrl}${path}`, { method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    // each chunk flushed on its own: the server sees the body in pieces
    const write = (i: number): void => {
      if (i === chunks.length) return void req.end();
      req.write(chunks[i], () => setImmediate(() => write(i + 1)));
    };
    write(0);
  });
}

const LIMIT = 4096;

describe('request bodies over a socket', () => {
  let h: TestHearth;
  const path = () => `/devices/${h.device.id}/kv/greeting`;
  const stored = async () => (await h.http('GET', path(), { token: h.adminKey })).body.value;

  beforeAll(async () => {
    h = await startTestHearth({ limits: { httpBodyBytes: LIMIT } });
  });
  afterAll(() => h.close());

  for (const streamed of [false, true]) {
    const how = streamed ? 'streamed (chunked)' : 'with a Content-Length';
    it(`reads a body split across writes, a multi-byte character cut in two, ${how}`, async () => {
      const bytes = Buffer.from(JSON.stringify({ value: 'grüße ☃' }));
      const cut = bytes.indexOf(0xe2) + 1; // inside the snowman's three bytes
      const r = await send(h, 'PUT', path(), [bytes.subarray(0, 5), bytes.subarray(5, cut), bytes.subarray(cut)], { streamed });
      expect(r.status).toBe(204);
      expect(await stored()).toBe('grüße ☃');
    });

    it(`drops a leading BOM and turns malformed UTF-8 into U+FFFD, ${how}`, async () => {
      const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"value":"a'), Buffer.from([0xff, 0xc3]), Buffer.from('b"}')]);
      const r = await send(h, 'PUT', path(), [body], { streamed });
      expect(r.status).toBe(204);
      expect(await stored()).toBe('a\ufffd\ufffdb');
    });

    it(`reads a form-encoded body, ${how}`, async () => {
      const r = await send(h, 'PUT', path(), [Buffer.from('value=from+a+form')], { streamed, type: 'application/x-www-form-urlencoded' });
      expect(r.status).toBe(204);
      expect(await stored()).toBe('from a form');
    });

    it(`answers INVALID_JSON for a broken body, ${how}`, async () => {
      const r = await send(h, 'PUT', path(), [Buffer.from('{"value":')], { streamed });
      expect(r.status).toBe(403);
      expect(JSON.parse(r.body).reason).toBe('INVALID_JSON');
      expect((await send(h, 'PUT', path(), [Buffer.from('{"value":"after"}')], { streamed })).status).toBe(204);
      expect(await stored()).toBe('after');
    });
  }

  it('takes an event with a Content-Length: 204 once it is in the history', async () => {
    const body = Buffer.from(JSON.stringify({ eventType: 'bodyTest', eventData: { n: 1, text: 'ü' } }));
    const r = await send(h, 'PUT', `/devices/${h.device.id}/event`, [body.subarray(0, 7), body.subarray(7)]);
    expect(r.status).toBe(204);
    expect(r.body).toBe('');
  });

  it('refuses a body over the limit from its Content-Length, before reading it', async () => {
    const r = await send(h, 'PUT', path(), [Buffer.alloc(LIMIT + 1, 0x20)]);
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body).reason).toBe('BODY_TOO_LARGE');
  });
});
