// One Hearth's event side for unit tests: its own SQLite store with project 1 and a webhook module
// `hooks` subscribed to every event, a local bus, and the server's own parts (src/roles/deps.ts:
// this store's pipeline, ids, sealer, and a tool's stand-ins). `deliveries()` reads the queued
// deliveries' payloads, oldest first.
import { onTestFinished } from 'vitest';
import { makeSqliteStore } from './db.js';
import { createLocalBus } from '../../src/adapters/local/bus.js';
import { systemClock } from '../../src/ports/clock.js';
import { domainParts, toolParts } from '../../src/roles/deps.js';

export const EVENT_SIDE_TIME = '2030-01-01T00:00:00.000Z';

export async function eventSide() {
  const { store, cleanup } = await makeSqliteStore();
  const bus = createLocalBus();
  onTestFinished(async () => {
    await bus.close();
    await cleanup();
  });
  const T = EVENT_SIDE_TIME;
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
  const deps = { ...toolParts(), ...domainParts({ store, secret: 'unit-secret-unit-secret' }), store, bus, clock: systemClock };
  const payloads = async () => (await store.deliveries.list({ projectId: 1, moduleId: 'hooks' }, { skip: 0, limit: 100 })).items.map((d) => d.payload);
  return { deps, payloads };
}
