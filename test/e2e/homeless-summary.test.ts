// docs/concepts.md#homes: events of devices in no home reach no module, and the general log says so in
// one line per project and interval, not one per device: the first device is named at once, the
// others that send in the interval after it are counted in one summary line with a few of their ids.
// A real server on loopback (SQLite), devices sending over MQTT and HTTP with their own keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHearth, type TestHearth } from '../helpers/hearth.js';
import { seedProject } from '../helpers/store-seed.js';
import { mqttConnect } from './broker/clients.js';
import { eventually } from '../helpers/wait.js';

// long enough that events sent together all fall in the interval the first one opens
const SUMMARY_SECONDS = 8;

describe('the general log on devices in no home', () => {
  let t: TestHearth;
  beforeAll(async () => {
    t = await startTestHearth({ homelessEvents: { summarySeconds: SUMMARY_SECONDS } });
  });
  afterAll(async () => {
    await t?.close();
  });

  const homelessLines = async (projectId: number, adminKey: string): Promise<{ text: string; level: number; source: string }[]> =>
    (await t.http('GET', `/logs?projectId=${projectId}&limit=100`, { token: adminKey })).body.filter((l: { text: string }) => l.text.includes('in no home'));

  it('names the first device at once and counts the others in one summary line with a few ids', async () => {
    const { projectId, adminKey } = await seedProject(t.deps);
    const devices = await Promise.all(Array.from({ length: 8 }, () => t.seedDevice({ homeId: null, projectId })));
    const ids = devices.map((d) => d.id);
    // two of them over MQTT (the PUBACK follows the commit), the rest over HTTP, all at once
    const clients = await Promise.all(devices.slice(0, 2).map((d) => mqttConnect(t, d)));
    try {
      await Promise.all([
        ...clients.map((c, i) => c.publishAsync(`/devices/${devices[i].id}/event`, '{"eventType":"hello","eventData":{}}', { qos: 1 })),
        ...devices.slice(2).map(async (d) => {
          const r = await t.http('PUT', `/devices/${d.id}/event`, { token: d.key, body: { eventType: 'hello', eventData: {} } });
          expect(r.status).toBe(204);
        }),
      ]);
      // the summary comes when the interval ends: wait for it
      const summary = (await eventually(
        async () => (await homelessLines(projectId, adminKey)).find((l) => /^\d+ devices? in no home/.test(l.text)),
        SUMMARY_SECONDS * 1000 + 20_000,
        'the summary line',
      ))!;
      const lines = await homelessLines(projectId, adminKey);
      // two lines for eight devices: the first one named at once, then the count of the seven others
      expect(lines).toHaveLength(2);
      const first = lines.find((l) => /^device \d+ is in no home/.test(l.text))!;
      const named = Number(/^device (\d+) is in no home/.exec(first.text)?.[1]);
      expect(ids).toContain(named);
      expect(summary.text).toMatch(/^7 devices in no home sent events in the last 8 s: /);
      const listed = /: ([\d, ]+) and 2 more\./.exec(summary.text)?.[1].split(', ').map(Number);
      expect(listed).toHaveLength(5);
      for (const id of listed!) expect(ids.filter((i) => i !== named)).toContain(id);
      for (const l of lines) expect(l).toMatchObject({ level: 2, source: 'webhooks' });
      // the events themselves were all stored
      const stored = (await t.http('GET', `/events?projectId=${projectId}&limit=100`, { token: adminKey })).body;
      expect(stored.filter((e: { eventType: string }) => e.eventType === 'hello')).toHaveLength(8);
    } finally {
      await Promise.all(clients.map((c) => c.endAsync()));
    }
  }, 60_000);

  it('a device in a home adds nothing; the next interval with devices in no home gets its own line', async () => {
    const { projectId, adminKey } = await seedProject(t.deps);
    const home = await t.seedHome({ projectId });
    const housed = await t.seedDevice({ homeId: home, projectId });
    const [a, b] = await Promise.all([t.seedDevice({ homeId: null, projectId }), t.seedDevice({ homeId: null, projectId })]);
    const send = async (d: { id: number; key: string }) =>
      expect((await t.http('PUT', `/devices/${d.id}/event`, { token: d.key, body: { eventType: 'tick', eventData: {} } })).status).toBe(204);
    await send(housed);
    await send(a);
    await send(a);
    await send(housed);
    await send(b);
    // the positive control: b's count arrives; a (named first) and the housed device are in no line after it
    const summary = (await eventually(
      async () => (await homelessLines(projectId, adminKey)).find((l) => /^\d+ devices? in no home/.test(l.text)),
      SUMMARY_SECONDS * 1000 + 20_000,
      'the summary line',
    ))!;
    expect(summary.text).toMatch(new RegExp(`^1 device in no home sent events in the last 8 s: ${b.id}\\. `));
    const lines = await homelessLines(projectId, adminKey);
    expect(lines).toHaveLength(2);
    expect(lines.filter((l) => l.text.startsWith(`device ${a.id} is in no home`))).toHaveLength(1);
    expect(lines.some((l) => new RegExp(`\\b${housed.id}\\b`).test(l.text))).toBe(false);
  }, 60_000);
});
