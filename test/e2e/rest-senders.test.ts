// REST senders sharing commits (src/domain/event/group-commit.ts, docs/operations.md#durability):
// devices that each send their next event with `PUT /devices/{id}/event` once the last one is
// answered, each on its own keep-alive connection. After their batch is answered the next commit
// waits for them to come back, as long as they keep coming, and waits for the late ones again
// after a wait that ran out: whatever the timing, every event answered 204 is stored, and each
// device's events in the order it sent them. Real server, real sockets.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHearth, type SeededDevice, type TestHearth } from '../helpers/hearth.js';

let t: TestHearth;
beforeAll(async () => {
  t = await startTestHearth({ rateLimit: { enabled: false } });
});
afterAll(() => t?.close());

/** sends `count` events one after the other on one keep-alive connection; the statuses answered */
async function sendInTurn(d: SeededDevice, count: number): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const statuses: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const body = JSON.stringify({ eventType: 'inTurn', eventData: { i } });
      statuses.push(
        await new Promise<number>((resolve, reject) => {
          const req = http.request(
            `${t.httpUrl}/devices/${d.id}/event`,
            {
              method: 'PUT',
              agent,
              headers: { authorization: `ModeCloud ${d.key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
            },
            (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode!));
            },
          );
          req.on('error', reject);
          req.end(body);
        }),
      );
    }
  } finally {
    agent.destroy();
  }
  return statuses;
}

/** the device's stored events' `i`, oldest first */
const storedOf = async (d: SeededDevice) =>
  (await t.deps.store.events.list({ projectId: d.projectId, deviceId: d.id, eventType: 'inTurn' }, { skip: 0, limit: 1000 })).items
    .reverse()
    .map((e) => e.event.eventData.i);

describe('REST senders sending in turn', () => {
  it('answer every event once it is stored, each device in order, while some senders stop early', async () => {
    const home = await t.seedHome();
    const devices = await Promise.all(Array.from({ length: 12 }, () => t.seedDevice({ homeId: home })));
    // a third stop after 3 events: the others' commits wait for senders that do not come back
    const counts = devices.map((_, k) => (k % 3 === 0 ? 3 : 40));
    const before = t.deps.pipeline.commitCounts();
    const statuses = await Promise.all(devices.map((d, k) => sendInTurn(d, counts[k])));
    for (const [k, s] of statuses.entries()) expect(s).toEqual(Array(counts[k]).fill(204));
    for (const [k, d] of devices.entries()) expect(await storedOf(d)).toEqual(Array.from({ length: counts[k] }, (_, i) => i));
    const after = t.deps.pipeline.commitCounts();
    expect(after.items - before.items).toBe(counts.reduce((a, b) => a + b, 0));
  });
});
