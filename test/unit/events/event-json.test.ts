// The event's JSON is written once per event by the verb (src/domain/event/send.ts jsonWith), not
// by JSON.stringify, and reused as the history row's body and the webhook payload. It must be the
// very text JSON.stringify(event) gives, also for origin fields holding characters JSON escapes.
import { describe, expect, it, onTestFinished } from 'vitest';
import { makeSqliteStore } from '../../helpers/db.js';
import { createLocalBus } from '../../../src/adapters/local/bus.js';
import { systemClock } from '../../../src/ports/clock.js';
import { createEventPipeline } from '../../../src/domain/event/pipeline.js';
import { sendEventOf } from '../../../src/domain/event/send.js';
import type { Caller } from '../../../src/domain/caller.js';
import { eventWebhookJson } from '../../../src/domain/webhook/payload.js';

const T = '2030-01-01T00:00:00.000Z';

async function setup() {
  const { store, cleanup } = await makeSqliteStore();
  const bus = createLocalBus();
  onTestFinished(async () => {
    await bus.close();
    await cleanup();
  });
  await store.projects.create({ name: 'p', creationTime: T });
  await store.modules.create({
    projectId: 1,
    id: 'hooks',
    moduleType: 'webhooks',
    description: null,
    eventWebhook: { url: 'http://127.0.0.1:9/', subscriptions: ['*'], headers: null, body: null, keySealed: 'k' },
    commandWebhook: null,
    eventDisabled: null,
    commandDisabled: null,
    creationTime: T,
    modificationTime: T,
  });
  const deps = {
    store,
    bus,
    clock: systemClock,
    pipeline: createEventPipeline({ store }),
    limits: { eventDataBytes: 65536, kvValueBytes: 65536, kvKeysPerStore: 1000, kvStoreBytes: 262144, listDefault: 1000, listMax: 10000 },
  };
  const payloads = async () => (await store.deliveries.list({ projectId: 1, moduleId: 'hooks' }, { skip: 0, limit: 100 })).items.map((d) => d.payload);
  return { deps, payloads };
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
