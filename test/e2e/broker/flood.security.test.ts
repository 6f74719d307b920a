// Issue 13 F3 replayed against a real server with MQTT.js: one device key, 30 persistent
// sessions with fresh client ids, each subscribing to 3,000 filters under its own
// /devices/{id}/bulkData/<label>/response, then disconnecting. Before the bounds of docs/devices.md#mqtt the
// broker kept every filter of every offline session (3.6 GB in 36 sessions, then out of memory).
// Now it keeps at most 8 sessions x 100 filters, /healthz answers after every session, and the
// heap grows by less than 64 MiB (measured after garbage collection; the figures are printed).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { flood, mib } from '../../../scripts/bench/lib/flood.js';

const SESSIONS = 30;
const FILTERS = 3000;
const HEAP_BOUND = 64 * 1024 * 1024;

let t: TestHearth;
beforeAll(async () => {
  t = await startTestHearth();
});
afterAll(() => t?.close());

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
async function settled(): Promise<{ heapUsed: number; rss: number }> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 50));
  }
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed, rss: m.rss };
}

it(`${SESSIONS} persistent sessions x ${FILTERS} filters of one device: bounded memory, the server stays healthy`, { timeout: 300_000 }, async () => {
  const d = await t.seedDevice();
  const before = await settled();
  let healthy = 0;
  const f = await flood({
    url: `mqtt://127.0.0.1:${t.mqttPort}`,
    deviceId: d.id,
    key: d.key,
    sessions: SESSIONS,
    filtersPerSession: FILTERS,
    afterSession: async () => {
      expect((await t.http('GET', '/healthz')).status).toBe(200);
      healthy++;
    },
  });
  const after = await settled();
  const persistence = (t.hearth.broker!.aedes as unknown as { persistence: { countOffline(): Promise<{ subsCount: number; clientsCount: number }> } })
    .persistence;
  const kept = await persistence.countOffline();
  console.log(
    `flood: ${f.sessions} sessions, ${f.granted} filters granted, ${f.refused} refused; kept ${kept.clientsCount} sessions / ${kept.subsCount} subscriptions; ` +
      `heap ${mib(before.heapUsed)} -> ${mib(after.heapUsed)}, RSS ${mib(before.rss)} -> ${mib(after.rss)}`,
  );
  // every session got in (the oldest offline ones made room), each with 100 filters granted
  expect(f.sessions).toBe(SESSIONS);
  expect(f.granted).toBe(SESSIONS * 100);
  expect(f.refused).toBe(SESSIONS * (FILTERS - 100));
  expect(kept.clientsCount).toBeLessThanOrEqual(8);
  expect(kept.subsCount).toBeLessThanOrEqual(8 * 100);
  expect(healthy).toBe(SESSIONS);
  expect(after.heapUsed - before.heapUsed).toBeLessThan(HEAP_BOUND);
});
