// [MQTT-4.6.0-2] (docs/devices.md#mqtt): the broker sends the PUBACKs of a connection in the order its
// PUBLISHes came. Aedes hands every publish of one socket read to the publish hook at once, and
// their work ends in another order: an event waits for its commit and disk sync while a publish
// dropped (a topic the device may not use) is answered at once, and the first event of a device in
// no home waits for the general log's line about it after its commit while the other events of its
// commit do not. Raw sockets: the publishes go out in one write, the PUBACKs' ids are read as sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHearth, type SeededDevice, type TestHearth } from '../../helpers/hearth.js';
import { connackOf, connectPacket, packetsOf, publishPacket, rawMqtt } from './raw-mqtt.js';

let t: TestHearth;
beforeAll(async () => {
  t = await startTestHearth();
});
afterAll(() => t?.close());

const event = (i: number) => JSON.stringify({ eventType: 'order', eventData: { i } });

/** sends the publishes in one write; resolves the PUBACKs' packet ids in the order they came */
async function pubackIds(d: SeededDevice, packets: Buffer[]): Promise<number[]> {
  const s = await rawMqtt(t);
  s.write(connectPacket({ clientId: `order-${d.id}`, username: String(d.id), password: d.key }));
  expect(await connackOf(s)).toBe(0);
  const read = packetsOf(s);
  s.write(Buffer.concat(packets));
  const ids: number[] = [];
  while (ids.length < packets.length) {
    const [first, body] = await read.next(10_000);
    if (first >> 4 === 4) ids.push(body.readUInt16BE(0));
  }
  return ids;
}

const stored = async (d: SeededDevice) =>
  (await t.deps.store.events.list({ projectId: d.projectId, deviceId: d.id, eventType: 'order' }, { skip: 0, limit: 100 })).total;

describe('PUBACKs of one connection', () => {
  it('leave in the order the publishes came when a dropped publish follows events', async () => {
    const home = await t.seedHome();
    const d = await t.seedDevice({ homeId: home });
    const packets: Buffer[] = [];
    for (let i = 1; i <= 10; i++) packets.push(publishPacket(`/devices/${d.id}/event`, event(i), i));
    // not a topic the device may publish to: dropped and logged, its PUBACK owed all the same
    packets.push(publishPacket(`/devices/${d.id + 1000}/event`, event(11), 11));
    for (let i = 12; i <= 20; i++) packets.push(publishPacket(`/devices/${d.id}/event`, event(i), i));
    // a payload refused: dropped too
    packets.push(publishPacket(`/devices/${d.id}/event`, '{"eventType":', 21));
    expect(await pubackIds(d, packets)).toEqual(packets.map((_, i) => i + 1));
    expect(await stored(d)).toBe(19);
  });

  it('leave in the order the publishes came when the first event of a device in no home waits for its log line', async () => {
    // the first device in no home of a project that sends names itself in the general log
    const d = await t.seedDevice({ projectId: 2, homeId: null });
    const packets: Buffer[] = [];
    for (let i = 1; i <= 20; i++) packets.push(publishPacket(`/devices/${d.id}/event`, event(i), i));
    expect(await pubackIds(d, packets)).toEqual(packets.map((_, i) => i + 1));
    expect(await stored(d)).toBe(20);
  });
});
