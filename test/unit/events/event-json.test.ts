// The event's JSON is written once per event by the verb (src/domain/event/send.ts) and reused as
// the history row's body and the webhook payload. It must be the very text JSON.stringify(event)
// gives, also for origin fields holding characters JSON escapes.
import { describe, expect, it } from 'vitest';
import { sendEventOf } from '../../../src/domain/event/send.js';
import type { Caller } from '../../../src/domain/caller.js';
import { eventWebhookJson } from '../../../src/domain/webhook/payload.js';
import { eventSide } from '../../helpers/event-side.js';

async function setup() {
  const side = await eventSide();
  const limits = { eventDataBytes: 65536, kvValueBytes: 65536, kvKeysPerStore: 1000, kvStoreBytes: 262144, listDefault: 1000, listMax: 10000 };
  return { deps: { ...side.deps, limits }, payloads: side.payloads };
}

describe('the event JSON of the verb', () => {
  it('is JSON.stringify(event), escapes and all, for a device and for a project key', async () => {
    const { deps, payloads } = await setup();
    const awkward = 'q"b\\s\u0001\u2028\ud800 é';
    const device = { id: 7, projectId: 1, deviceClass: `class ${awkward}`, homeId: 1 };
    const asDevice: Caller = { type: 'device', projectId: 1, deviceId: 7, deviceClass: device.deviceClass, ip: '::ffff:127.0.0.1' };
    const asKey: Caller = { type: 'project key', projectId: 1, keyId: 'k1', keyName: `key ${awkward}`, scopes: ['admin'], ip: undefined };
    const body = { eventType: 'json-Check_1', eventData: { text: awkward, n: -0, big: 1e300, nested: { list: [1, 'two', null] } } };
    const a = await sendEventOf({ deps: deps as never, caller: asDevice, input: { device, body } });
    const b = await sendEventOf({ deps: deps as never, caller: asKey, input: { device, body } });
    // a device's event goes out as the event's JSON itself; a project key's is rebuilt
    // (originProjectKeyID), from the event, by JSON.stringify (payload.ts eventWebhookJson)
    expect(JSON.stringify(a)).toContain('\\u0001');
    expect((await payloads()).sort()).toEqual([JSON.stringify(a), eventWebhookJson({ ...b, homeId: 1 })].sort());
    // the history keeps the same text: read back, it is the event
    const history = await deps.store.events.list({ projectId: 1 }, { skip: 0, limit: 10 });
    expect(history.items.map((e) => JSON.stringify(e.event)).sort()).toEqual([JSON.stringify(a), JSON.stringify(b)].sort());
  });

  it("bounds eventData by its own UTF-8 size, not the event's: the limit itself is accepted, a byte more refused", async () => {
    const { deps } = await setup();
    const limits = { ...deps.limits, eventDataBytes: 1000 };
    const device = { id: 7, projectId: 1, deviceClass: 'c', homeId: 1 };
    const caller: Caller = { type: 'device', projectId: 1, deviceId: 7, deviceClass: 'c', ip: '127.0.0.1' };
    // {"s":"…"} is 8 bytes around the text; é is 2 bytes of UTF-8, 1 UTF-16 unit
    const data = (bytes: number) => ({ s: 'é'.repeat(Math.floor((bytes - 8) / 2)) + 'x'.repeat((bytes - 8) % 2) });
    const send = (bytes: number) =>
      sendEventOf({ deps: { ...deps, limits } as never, caller, input: { device, body: { eventType: 't', eventData: data(bytes) } } });
    expect(Buffer.byteLength(JSON.stringify(data(1000)))).toBe(1000);
    const at = await send(1000);
    expect(Buffer.byteLength(JSON.stringify(at))).toBeGreaterThan(1000);
    await expect(send(1001)).rejects.toMatchObject({
      reason: 'INVALID_PARAMETERS',
      data: { issues: [{ path: 'eventData', message: 'eventData is 1001 bytes; the limit is 1000' }] },
    });
    const history = await deps.store.events.list({ projectId: 1 }, { skip: 0, limit: 10 });
    expect(history.items.map((e) => JSON.stringify(e.event))).toEqual([JSON.stringify(at)]);
  });
});
