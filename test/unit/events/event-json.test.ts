// The event's JSON is written once per event by the verb (src/domain/event/send.ts jsonWith), not
// by JSON.stringify, and reused as the history row's body and the webhook payload. It must be the
// very text JSON.stringify(event) gives, also for origin fields holding characters JSON escapes.
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
});
