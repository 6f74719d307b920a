// `PUT /devices/{id}/event` answers, whole, over raw sockets to a real server: every good and bad
// request its callers send, each answer's status line, headers (in order) and body compared byte
// for byte with what it must be. The route is the HTTP way in of device events, the one most
// likely to get a way of its own past Hono (issue #26 measured one: docs/operations.md#durability);
// requests of its plain shape and of others (a query, a percent-encoded id, a trailing slash, a
// chunked body) are all here, so that any such way must answer as Hono's does. Only the Date
// header's value and a request id the server made up are read as patterns.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { startTestHearth, type SeededDevice, type TestHearth } from '../helpers/hearth.js';

/** one request written as it is given, the whole answer read as text (Content-Length framed) */
function exchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let got = '';
    const done = () => {
      socket.destroy();
      resolve(got);
    };
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      got += d;
      const end = got.indexOf('\r\n\r\n');
      if (end === -1) return;
      const length = /\r\ncontent-length: *(\d+)/i.exec(got.slice(0, end));
      if (got.length >= end + 4 + (length ? Number(length[1]) : 0)) done();
    });
    socket.on('end', done);
    socket.on('error', reject);
    socket.write(request);
  });
}

/** the answer with its Date's value, and a request id of the server's making, as placeholders */
function normalized(answer: string, givenId: string | undefined): string {
  let text = answer.replace(/\r\nDate: [^\r]+/, '\r\nDate: <date>');
  if (givenId === undefined)
    text = text.replace(/\r\nx-request-id: [0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\r\n/, '\r\nx-request-id: <uuid>\r\n');
  return text;
}

/** a body in chunks (no Content-Length) */
const chunked = (...pieces: string[]) => pieces.map((p) => `${Buffer.byteLength(p).toString(16)}\r\n${p}\r\n`).join('') + '0\r\n\r\n';

interface Case {
  name: string;
  target?: string;
  auth?: string;
  body?: string;
  /** headers after the defaults, written as given (a Content-Length of the body unless one is here) */
  headers?: string[];
  requestId?: string;
  expected: string;
}

/** the CORS headers of an answer: any origin (the default), a listed one echoed, or none for another */
const ANY = 'access-control-allow-origin: *\r\naccess-control-expose-headers: vnd.tinkermode.range,X-Request-Id,Retry-After\r\n';
const LISTED =
  'access-control-allow-origin: https://app.example.com\r\naccess-control-expose-headers: vnd.tinkermode.range,X-Request-Id,Retry-After\r\nvary: Origin\r\n';
const NOT_LISTED = 'vary: Origin\r\n';
const TAIL = 'Date: <date>\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\n';
const noContent = (id: string, cors = ANY) => `HTTP/1.1 204 No Content\r\nx-request-id: ${id}\r\n${cors}${TAIL}`;
/** a refusal (docs/api.md#errors): its JSON body, and its reason's status */
const refusal = (status: string, id: string, body: object, cors = ANY) => {
  const text = JSON.stringify(body);
  return `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${text.length}\r\nx-request-id: ${id}\r\n${cors}${TAIL}${text}`;
};
/** RATE_LIMITED, with its Retry-After (a second: the steady window is one) */
const limitedAnswer = (id: string, cors: string) => {
  const text = '{"reason":"RATE_LIMITED","data":{"retryAfter":1}}';
  return `HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\nretry-after: 1\r\nContent-Length: ${text.length}\r\nx-request-id: ${id}\r\n${cors}${TAIL}${text}`;
};
const missing = (key: string) => ({ path: key, message: `Invalid key: Expected "${key}" but received undefined` });

describe('PUT /devices/{id}/event answers', () => {
  let t: TestHearth;
  let limited: TestHearth;
  let device: SeededDevice;
  let other: SeededDevice;
  let events: string;
  let noScope: string;

  beforeAll(async () => {
    t = await startTestHearth({ limits: { httpBodyBytes: 1024 } as never });
    device = t.device;
    other = await t.seedDevice();
    events = (await t.seedProjectKey(['events'])).key;
    noScope = (await t.seedProjectKey(['commands'])).key;
    limited = await startTestHearth({ rateLimit: { enabled: true, perSecond: 1, burst: 1 }, corsOrigins: ['https://app.example.com'] });
  });
  afterAll(async () => {
    await t?.close();
    await limited?.close();
  });

  const put = (server: TestHearth, c: Omit<Case, 'expected' | 'name'>, deviceId: number): string => {
    const body = c.body ?? '{"eventType":"doorOpened","eventData":{"door":"front"}}';
    const lines = [`PUT ${c.target ?? `/devices/${deviceId}/event`} HTTP/1.1`, `host: 127.0.0.1:${server.httpPort}`, 'content-type: application/json'];
    if (c.auth !== undefined) lines.push(`authorization: ${c.auth}`);
    if (c.requestId !== undefined) lines.push(`x-request-id: ${c.requestId}`);
    lines.push(...(c.headers ?? []));
    if (!(c.headers ?? []).some((h) => /^(content-length|transfer-encoding):/i.test(h))) lines.push(`content-length: ${Buffer.byteLength(body)}`);
    return `${lines.join('\r\n')}\r\n\r\n${body}`;
  };

  const cases = (): Case[] => {
    const own = `ModeCloud ${device.key}`;
    return [
      { name: 'the device itself', auth: own, requestId: 'ok-1', expected: noContent('ok-1') },
      { name: 'a request id of the server’s making', auth: own, expected: noContent('<uuid>') },
      { name: 'an invalid request id is replaced', auth: own, requestId: 'bad id!', expected: noContent('<uuid>') },
      { name: 'a query (Hono’s way)', auth: own, target: `/devices/${device.id}/event?x=1`, requestId: 'q-1', expected: noContent('q-1') },
      {
        name: 'a percent-encoded id (Hono’s way)',
        auth: own,
        target: `/devices/%3${String(device.id).slice(0, 1)}${String(device.id).slice(1)}/event`,
        requestId: 'pe-1',
        expected: noContent('pe-1'),
      },
      {
        name: 'a chunked body',
        auth: own,
        requestId: 'ch-1',
        headers: ['transfer-encoding: chunked'],
        body: chunked('{"eventTy', 'pe":"doorOpened","eventData":{"door":"x"}}'),
        expected: noContent('ch-1'),
      },
      { name: 'a project key with scope events', auth: `ModeCloud ${events}`, requestId: 'pk-1', expected: noContent('pk-1') },
      {
        name: 'a project key without it',
        auth: `ModeCloud ${noScope}`,
        requestId: 'pk-2',
        expected: refusal('403 Forbidden', 'pk-2', { reason: 'PERMISSION_DENIED', data: { required: 'scope events' } }),
      },
      { name: 'no key', requestId: 'k-0', expected: refusal('401 Unauthorized', 'k-0', { reason: 'AUTHORIZATION_REQUIRED' }) },
      { name: 'a wrong key', auth: 'ModeCloud v1.bm90LWEta2V5', requestId: 'k-1', expected: refusal('401 Unauthorized', 'k-1', { reason: 'INVALID_TOKEN' }) },
      {
        name: 'another device’s id',
        auth: own,
        target: `/devices/${other.id}/event`,
        requestId: 'd-1',
        expected: refusal('404 Not Found', 'd-1', { reason: 'DEVICE_NOT_FOUND', data: { deviceId: other.id } }),
      },
      {
        name: 'an unknown device',
        auth: own,
        target: '/devices/987654/event',
        requestId: 'd-2',
        expected: refusal('404 Not Found', 'd-2', { reason: 'DEVICE_NOT_FOUND', data: { deviceId: 987654 } }),
      },
      {
        name: 'an id that is no id',
        auth: own,
        target: '/devices/abc/event',
        requestId: 'd-3',
        expected: refusal('404 Not Found', 'd-3', { reason: 'DEVICE_NOT_FOUND', data: { deviceId: 'abc' } }),
      },
      {
        name: 'a trailing slash',
        auth: own,
        target: `/devices/${device.id}/event/`,
        requestId: 'd-4',
        expected: refusal('404 Not Found', 'd-4', { reason: 'NOT_FOUND', data: { path: `/devices/${device.id}/event/` } }),
      },
      {
        name: 'no body',
        auth: own,
        body: '',
        requestId: 'b-0',
        expected: refusal('403 Forbidden', 'b-0', { reason: 'INVALID_PARAMETERS', data: { issues: [missing('eventType'), missing('eventData')] } }),
      },
      {
        name: 'a body that is not JSON',
        auth: own,
        body: '{"eventType":',
        requestId: 'b-1',
        expected: refusal('403 Forbidden', 'b-1', { reason: 'INVALID_JSON', data: { message: 'Unexpected end of JSON input' } }),
      },
      {
        name: 'a body without eventType',
        auth: own,
        body: '{"eventData":{}}',
        requestId: 'b-2',
        expected: refusal('403 Forbidden', 'b-2', { reason: 'INVALID_PARAMETERS', data: { issues: [missing('eventType')] } }),
      },
      {
        name: 'a body over the limit',
        auth: own,
        body: `{"eventType":"x","eventData":{"p":"${'a'.repeat(1100)}"}}`,
        requestId: 'b-3',
        expected: refusal('403 Forbidden', 'b-3', { reason: 'BODY_TOO_LARGE', data: { limit: 1024 } }),
      },
      {
        name: 'a body nested too deep',
        auth: own,
        body: `{"eventType":"x","eventData":${'['.repeat(40)}${']'.repeat(40)}}`,
        requestId: 'b-4',
        expected: refusal('403 Forbidden', 'b-4', {
          reason: 'INVALID_PARAMETERS',
          data: { issues: [{ path: `eventData${'.0'.repeat(31)}`, message: 'nested deeper than 32 levels' }], limit: 32 },
        }),
      },
      {
        name: 'a Content-Length that is no number',
        auth: own,
        headers: ['content-length: abc'],
        requestId: 'b-5',
        // refused by Node's HTTP parser, before any route (src/http/client-error.ts)
        expected: `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: 113\r\nConnection: close\r\n\r\n${JSON.stringify({ reason: 'BAD_REQUEST', data: { error: 'the request is not valid HTTP/1.1', code: 'HPE_INVALID_CONTENT_LENGTH' } })}`,
      },
    ];
  };

  it('answers each request as it must, byte for byte', async () => {
    const got: Record<string, string> = {};
    for (const c of cases())
      got[c.name] = normalized(await exchange(t.httpPort, put(t, c, device.id)), c.requestId?.match(/^[\w.-]+$/) ? c.requestId : undefined);
    if (process.env.PRINT_ANSWERS) console.log(JSON.stringify(got, null, 1));
    expect(got).toEqual(Object.fromEntries(cases().map((c) => [c.name, c.expected])));
  });

  it('answers alike under a rate limit and a list of CORS origins', async () => {
    const own = `ModeCloud ${limited.device.key}`;
    const wrong = 'ModeCloud v1.bm90LWEta2V5';
    const listed = ['origin: https://app.example.com'];
    const send = (c: Omit<Case, 'expected' | 'name'>) => exchange(limited.httpPort, put(limited, c, limited.device.id)).then((a) => normalized(a, c.requestId));
    /** the first answer of the given status, sending again until it comes (a bucket spent within its second) */
    const until = async (status: number, c: Omit<Case, 'expected' | 'name'>) => {
      for (;;) {
        const a = await send(c);
        if (a.startsWith(`HTTP/1.1 ${status} `)) return a;
      }
    };
    const got = {
      // a key's first request, and an address's first refused key: their buckets are full
      'the first, from a listed origin': await send({ auth: own, headers: listed, requestId: 'r-1' }),
      'a wrong key': await send({ auth: wrong, requestId: 'r-4' }),
      'refused, from a listed origin': await until(429, { auth: own, headers: listed, requestId: 'r-2' }),
      'refused, from an origin not listed': await until(429, { auth: own, headers: ['origin: https://evil.example.com'], requestId: 'r-3' }),
      'a wrong key, refused': await until(429, { auth: wrong, requestId: 'r-5' }),
    };
    if (process.env.PRINT_ANSWERS) console.log(JSON.stringify(got, null, 1));
    expect(got).toEqual({
      'the first, from a listed origin': noContent('r-1', LISTED),
      'a wrong key': refusal('401 Unauthorized', 'r-4', { reason: 'INVALID_TOKEN' }, NOT_LISTED),
      'refused, from a listed origin': limitedAnswer('r-2', LISTED),
      'refused, from an origin not listed': limitedAnswer('r-3', NOT_LISTED),
      'a wrong key, refused': limitedAnswer('r-5', NOT_LISTED),
    });
  });
});
