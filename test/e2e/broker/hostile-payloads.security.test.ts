// Issue 13 F1/F2 (API.md §0, §5): deeply nested JSON. About 5,000 levels (30 KB) used to overflow
// the stack in the size check (JSON.stringify): 500 over HTTP, and over MQTT the connection was
// cut with no PUBACK and nothing in the general log. Now the nesting is judged on the text first:
// HTTP 403 INVALID_PARAMETERS naming the path and the limit; MQTT PUBACK, dropped, logged, the
// connection stays. 100,000 levels (where V8's JSON.parse itself may give up) too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { brokerLogLines, eventually, mqttConnect } from './clients.js';

let t: TestHearth;
beforeAll(async () => {
  t = await startTestHearth();
});
afterAll(() => t?.close());

/** `{"a":{"a":...{"a":1}...}}` with `levels` objects */
const nestedObjects = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
const nestedArrays = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
const logged = (fragment: string) => eventually(async () => (await brokerLogLines(t)).some((l) => l.includes(fragment)), 5000, `log line with ${fragment}`);

describe('HTTP bodies nested past the limit', () => {
  const deep = (body: string) => `{"eventType":"deep","eventData":${body}}`;
  for (const levels of [33, 5000, 100_000]) {
    it(`${levels} levels: 403 INVALID_PARAMETERS naming the path and the limit, on every JSON route`, async () => {
      const d = await t.seedDevice();
      const cases: [string, string, string][] = [
        ['PUT', `/devices/${d.id}/event`, deep(nestedObjects(levels))],
        ['PUT', `/devices/${d.id}/kv/k`, `{"value":${nestedArrays(levels)}}`],
        ['POST', `/devices/${d.id}/data`, `{"data":[${nestedObjects(levels)}]}`],
      ];
      for (const [method, path, raw] of cases) {
        const r = await t.http(method, path, { token: d.key, raw });
        expect(r.status, `${method} ${path}`).toBe(403);
        expect(r.body.reason).toBe('INVALID_PARAMETERS');
        expect(r.body.data.limit).toBe(32);
        expect(r.body.data.issues[0].message).toBe('nested deeper than 32 levels');
      }
      const r = await t.http('PUT', `/devices/${d.id}/event`, { token: d.key, raw: deep(nestedObjects(levels)) });
      // eventData is level 1, then 31 more `a`s fit
      expect(r.body.data.issues[0].path).toBe(['eventData', ...Array(31).fill('a')].join('.'));
    });
  }

  it('32 levels are accepted (positive control), and arrays name their indices', async () => {
    const d = await t.seedDevice();
    // the body is level 1, eventData 2: 30 more levels fit
    expect((await t.http('PUT', `/devices/${d.id}/event`, { token: d.key, raw: `{"eventType":"ok32","eventData":${nestedObjects(31)}}` })).status).toBe(204);
    const r = await t.http('PUT', `/devices/${d.id}/kv/k`, { token: d.key, raw: `{"value":[0,[1,${nestedArrays(40)}]]}` });
    expect(r.status).toBe(403);
    expect(r.body.data.issues[0].path).toMatch(/^value\.1\.1\.0\.0/);
  });

  it('the server stays up: /healthz answers after the deepest body', async () => {
    expect((await t.http('GET', '/healthz')).status).toBe(200);
  });
});

describe('MQTT payloads nested past the limit', () => {
  // 100,000 levels as arrays (200 KB) stay under the 256 KiB packet cap (API.md §13: a packet
  // over it is a closed connection, by design); as objects they would not
  for (const [levels, nest] of [
    [5000, nestedObjects],
    [100_000, nestedArrays],
  ] as const) {
    it(`${levels} levels: PUBACK, dropped, logged, the connection stays`, async () => {
      const d = await t.seedDevice();
      const c = await mqttConnect(t, d);
      let closed = false;
      c.on('close', () => (closed = true));
      for (const [topic, payload] of [
        [`/devices/${d.id}/event`, `{"eventType":"deep","eventData":{"x":${nest(levels)}}}`],
        [`/devices/${d.id}/kv`, `{"action":"set","key":"k","value":${nest(levels)}}`],
        [`/devices/${d.id}/data`, `{"data":[${nest(levels)}]}`],
      ]) {
        // publishAsync resolves on the PUBACK
        await c.publishAsync(topic, payload, { qos: 1 });
        await logged(`dropped MQTT publish to ${topic} from device ${d.id}: payload nested deeper than 32 levels`);
      }
      // positive control: the same connection still gets a valid event through
      await c.publishAsync(`/devices/${d.id}/event`, JSON.stringify({ eventType: 'afterDeep', eventData: {} }), { qos: 1 });
      expect((await t.deps.store.events.list({ projectId: 1, eventType: 'afterDeep', deviceId: d.id }, { skip: 0, limit: 1 })).total).toBe(1);
      expect(closed).toBe(false);
      expect(c.connected).toBe(true);
    });
  }
});
