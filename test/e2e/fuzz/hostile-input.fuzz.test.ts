// Issue 13 F1/F2: generated hostile input against EVERY JSON-taking route and every device topic.
// The routes come from the routes' own list (src/http/routes/index.ts ROUTES, what createApi
// mounts): every POST, PUT and PATCH, so a new route is covered without touching this file.
// Payloads: nesting past the limit (33 levels up to 100,000), huge bodies, non-objects, bytes that
// are not UTF-8, odd numbers (1e999, -0, 1e-400, big integers), and random JSON from a seeded
// PRNG (FUZZ_SEED to replay a failure). Never a 500, never a dropped MQTT connection (the same
// connection answers a valid publish with PUBACK afterwards), never a crash (/healthz).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GenericSchema } from 'valibot';
import { ROUTES } from '../../../src/http/routes/index.js';
import type { OpMeta } from '../../../src/http/op-meta.js';
import { startTestHearth, type SeededDevice, type TestHearth } from '../../helpers/hearth.js';
import { mulberry32, type Rng } from '../../helpers/random.js';
import mqtt, { type MqttClient } from 'mqtt';

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const RANDOM_PER_TARGET = 6;

let t: TestHearth;
let device: SeededDevice;
let mqttDevice: SeededDevice;
let home: number;
let user: { userId: number; token: string };
beforeAll(async () => {
  // the per-device publish rate would drop the positive controls: not what this is about
  t = await startTestHearth({ mqttRateLimit: { publishesPerSecond: 100_000, burst: 100_000 } });
  home = await t.seedHome();
  device = await t.seedDevice({ homeId: home });
  mqttDevice = await t.seedDevice({ homeId: home });
  user = await t.seedUser({ homeIds: [home] });
});
afterAll(() => t?.close());

/** every JSON-taking route: method, full path, and the field names of its body schema when it has one */
function jsonRoutes(): { method: string; path: string; fields: string[] }[] {
  const out = new Map<string, { method: string; path: string; fields: string[] }>();
  for (const [prefix, sub] of ROUTES) {
    for (const r of sub().routes) {
      if (!['POST', 'PUT', 'PATCH'].includes(r.method)) continue;
      const path = `${prefix.replace(/\/$/, '')}${r.path === '/' ? '' : r.path}` || '/';
      const body = (r.handler as { meta?: OpMeta }).meta?.body as (GenericSchema & { entries?: Record<string, unknown> }) | undefined;
      const root = (body as { pipe?: { entries?: Record<string, unknown> }[] } | undefined)?.pipe?.[0] ?? body;
      const key = `${r.method} ${path}`;
      const prev = out.get(key);
      const fields = Object.keys(root?.entries ?? {});
      out.set(key, { method: r.method, path, fields: prev ? [...new Set([...prev.fields, ...fields])] : fields });
    }
  }
  return [...out.values()];
}

/** path parameters filled with things that exist (so the body is reached), others with a plausible id */
function fill(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, (_m, name: string) => {
    switch (name) {
      case 'deviceId':
        return String(device.id);
      case 'homeId':
        return String(home);
      case 'projectId':
        return '1';
      case 'userId':
        return String(user.userId);
      case 'key':
        return 'fuzzKey';
      default:
        return 'fuzz1';
    }
  });
}

const nestedObjects = (n: number) => '{"a":'.repeat(n) + '0' + '}'.repeat(n);
const nestedArrays = (n: number) => '['.repeat(n) + ']'.repeat(n);
const ODD_NUMBERS = ['1e999', '-1e999', '-0', '1e-400', '123456789012345678901234567890', '-9007199254740993', '0.1e-99999', '1E+308'];

function randomJson(rng: Rng, depth: number): string {
  const r = rng();
  if (depth > 40 || r < 0.3) {
    const leaf = [
      () => ODD_NUMBERS[Math.floor(rng() * ODD_NUMBERS.length)],
      () => JSON.stringify('s'.repeat(Math.floor(rng() * 50))),
      () => 'null',
      () => 'true',
      () => String(Math.floor(rng() * 1e6)),
    ];
    return leaf[Math.floor(rng() * leaf.length)]();
  }
  const n = Math.floor(rng() * 4);
  if (r < 0.65) return `[${Array.from({ length: n }, () => randomJson(rng, depth + 1)).join(',')}]`;
  return `{${Array.from({ length: n }, (_, i) => `${JSON.stringify(`k${i}`)}:${randomJson(rng, depth + 1)}`).join(',')}}`;
}

/** bodies for one target: fixed hostile ones, then the target's own fields given odd values, then random ones */
function payloads(rng: Rng, fields: string[], maxBytes: number): { name: string; body: string | Buffer }[] {
  const list: { name: string; body: string | Buffer }[] = [
    { name: 'objects nested 33', body: nestedObjects(33) },
    { name: 'objects nested 5000', body: nestedObjects(5000) },
    { name: 'arrays nested 100000', body: nestedArrays(100_000) },
    { name: 'array', body: '[]' },
    { name: 'string', body: '"text"' },
    { name: 'number', body: '1e999' },
    { name: 'null', body: 'null' },
    { name: 'not UTF-8', body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]) },
    { name: 'broken JSON', body: '{"a":' },
    // (a body over the limit is answered 403 and the socket closed mid-upload: tested with the body limit)
    { name: 'huge string value', body: JSON.stringify({ v: 'x'.repeat(Math.min(maxBytes - 100, 200_000)) }) },
    { name: 'many keys', body: `{${Array.from({ length: 5000 }, (_, i) => `"k${i}":${i}`).join(',')}}` },
  ];
  for (const odd of ODD_NUMBERS) {
    list.push({ name: `fields = ${odd}`, body: `{${[...fields, 'value', 'eventData', 'data'].map((f) => `${JSON.stringify(f)}:${odd}`).join(',')}}` });
  }
  list.push({ name: 'fields nested 40', body: `{${[...fields, 'value', 'eventData'].map((f) => `${JSON.stringify(f)}:${nestedObjects(40)}`).join(',')}}` });
  // one field nested deep while the others are plausible, so validation reaches it (issue 13 F1:
  // eventType valid, eventData 5,000 levels)
  const all = [...new Set([...fields, 'eventType', 'eventData', 'value', 'data', 'parameters', 'action'])];
  for (const f of all) {
    for (const [levels, nest] of [
      [5000, nestedObjects],
      [100_000, nestedArrays],
    ] as const) {
      const others = all
        .filter((o) => o !== f)
        .map((o) => `${JSON.stringify(o)}:${o === 'data' ? '[{}]' : o === 'eventData' || o === 'parameters' ? '{}' : '"fuzz"'}`);
      const deep = f === 'data' ? `[${nest(levels)}]` : nest(levels);
      list.push({ name: `${f} nested ${levels}`, body: `{${[...others, `${JSON.stringify(f)}:${deep}`].join(',')}}` });
    }
  }
  for (let i = 0; i < RANDOM_PER_TARGET; i++) {
    const inner = `{${[...fields, 'eventType', 'eventData', 'action', 'key', 'value', 'data'].map((f) => `${JSON.stringify(f)}:${randomJson(rng, 0)}`).join(',')}}`;
    list.push({ name: `random #${i}`, body: inner });
  }
  return list.filter((p) => (typeof p.body === 'string' ? Buffer.byteLength(p.body) : p.body.length) <= maxBytes);
}

/** /healthz answers 200 (a pooled keep-alive socket the server just closed may fail once: retried) */
async function healthy(): Promise<boolean> {
  for (let i = 0; i < 3; i++) {
    try {
      return (await t.http('GET', '/healthz')).status === 200;
    } catch {
      // next attempt on a fresh socket
    }
  }
  return false;
}

/** a seed of its own per target, so one route's test replays alone (FUZZ_SEED and the target's name) */
function seedOf(name: string): number {
  let h = SEED >>> 0;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619) >>> 0;
  return h;
}

// One test per route and per topic: each has its own time budget, so a busy machine slows the
// file down without failing one 600 s test, and a failure names its route.
const ROUTE_LIST = jsonRoutes();

describe(`every JSON-taking route (seed ${SEED})`, () => {
  it('covers the routes of the finding (the list is derived, not typed in)', () => {
    const names = ROUTE_LIST.map((r) => `${r.method} ${r.path}`);
    expect(names).toEqual(expect.arrayContaining(['PUT /devices/:deviceId/event', 'PUT /devices/:deviceId/kv/:key', 'POST /devices/:deviceId/data']));
  });

  it.each(ROUTE_LIST.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s answers hostile bodies with a 4xx {reason}, never a 500',
    { timeout: 180_000 },
    async (name, r) => {
      const rng = mulberry32(seedOf(name));
      const failures: string[] = [];
      let requests = 0;
      const list = payloads(rng, r.fields, 2 * 1024 * 1024);
      for (const p of list) {
        for (const [who, token] of [
          ['admin key', t.adminKey],
          ['device key', device.key],
        ] as const) {
          let res: Response;
          let text: string;
          const send = async () => {
            const res = await fetch(t.httpUrl + fill(r.path), {
              method: r.method,
              headers: { authorization: `ModeCloud ${token}`, 'content-type': 'application/json' },
              body: p.body,
            });
            return [res, await res.text()] as const;
          };
          try {
            // a keep-alive socket the server closed after an early answer (a raw upload route
            // refusing before reading the body) fails the next request on it once: sent again
            [res, text] = await send().catch(send);
          } catch (err) {
            // a raw upload route (log parts) may refuse and close before reading the whole body:
            // fine as long as the server is alive; anything else is a failure
            const why = `${(err as Error).message}: ${((err as Error).cause as Error)?.message}`;
            const alive = await healthy();
            if (!alive || !why.includes('other side closed')) failures.push(`${name} [${p.name}, ${who}] → ${why}`);
            continue;
          }
          requests++;
          let reason: unknown;
          try {
            reason = text ? JSON.parse(text).reason : undefined;
          } catch {
            reason = undefined;
          }
          if (res.status >= 500 || (res.status >= 400 && typeof reason !== 'string')) {
            failures.push(`${name} [${p.name}, ${who}] → ${res.status} ${text.slice(0, 200)}`);
          }
        }
      }
      expect(failures).toEqual([]);
      // most bodies got an answer (an upload route may close early on some)
      expect(requests).toBeGreaterThan(20);
      expect(list.length).toBeGreaterThan(20);
      expect(await healthy()).toBe(true);
    },
  );
});

describe(`every device topic (seed ${SEED})`, () => {
  // one connection for every topic: it must survive them all
  let c: MqttClient;
  let closes = 0;
  beforeAll(async () => {
    c = await mqtt.connectAsync(`mqtt://127.0.0.1:${t.mqttPort}`, { username: String(mqttDevice.id), password: mqttDevice.key, reconnectPeriod: 0 });
    c.on('close', () => closes++);
  });
  afterAll(() => c?.endAsync(true));

  const topics = [
    ['event', (id: number) => `/devices/${id}/event`],
    ['kv', (id: number) => `/devices/${id}/kv`],
    ['data', (id: number) => `/devices/${id}/data`],
    ['bulkData', (id: number) => `/devices/${id}/bulkData/fuzz`],
    ['command', (id: number) => `/devices/${id}/command`],
    ["another device's event", (id: number) => `/devices/${id + 1}/event`],
  ] as const;

  it.each(topics)('%s: drops hostile payloads with a PUBACK and keeps the connection', { timeout: 180_000 }, async (name, topicOf) => {
    const d = mqttDevice;
    const topic = topicOf(d.id);
    const rng = mulberry32(seedOf(`mqtt ${name}`));
    // payloads under the MQTT packet cap (256 KiB): a packet over it closes the connection by design (docs/api.md#limits)
    for (const p of payloads(rng, ['eventType', 'eventData', 'action', 'key', 'value', 'data'], 250 * 1024)) {
      // publishAsync resolves on the PUBACK
      await c.publishAsync(topic, p.body, { qos: 1 });
    }
    // positive control on the same connection: a valid event is PUBACKed and stored
    const marker = `fuzzOk${name.replace(/[^a-zA-Z]/g, '')}`;
    await c.publishAsync(`/devices/${d.id}/event`, JSON.stringify({ eventType: marker, eventData: {} }), { qos: 1 });
    expect((await t.deps.store.events.list({ projectId: 1, eventType: marker, deviceId: d.id }, { skip: 0, limit: 1 })).total, topic).toBe(1);
    expect(closes).toBe(0);
    expect(c.connected).toBe(true);
    expect((await t.http('GET', '/healthz')).status).toBe(200);
  });
});
