// Fixtures of the Queue contract: a fresh store per test (cleaned up when it finishes), rows.
import { onTestFinished } from 'vitest';
import type { TestStore } from '../../helpers/db.js';
import type { ModuleRow, Store } from '../../../src/ports/store.js';
import type { NewDelivery } from '../../../src/ports/queue.js';

export type MakeStore = () => Promise<TestStore>;

export const T0 = '2030-01-01T00:00:00.000Z';
export const at = (s: number) => new Date(Date.parse(T0) + s * 1000).toISOString();

export async function fresh(make: MakeStore): Promise<Store> {
  const { store, cleanup } = await make();
  onTestFinished(cleanup);
  return store;
}

export const delivery = (id: string, o: Partial<NewDelivery> = {}): NewDelivery => ({
  id,
  projectId: 1,
  moduleId: 'm1',
  kind: 'event',
  eventId: `e-${id}`,
  eventType: 'tick',
  payload: `{"id":"${id}"}`,
  creationTime: T0,
  ...o,
});

export const moduleRow = (id: string, o: Partial<ModuleRow> = {}): ModuleRow => ({
  projectId: 1,
  id,
  moduleType: 'webhooks',
  description: null,
  tsdb: null,
  eventWebhook: { url: 'https://example.com/h', subscriptions: ['*'], headers: null, body: null, keySealed: 'v1.x.y.z' },
  commandWebhook: null,
  eventDisabled: null,
  commandDisabled: null,
  creationTime: T0,
  modificationTime: T0,
  ...o,
});

export const claim = (s: Store, workerId: string, now: number, limit = 10, excludeLanes?: string[]) =>
  s.deliveries.claim({ workerId, now: at(now), leaseUntil: at(now + 60), limit, excludeLanes });
