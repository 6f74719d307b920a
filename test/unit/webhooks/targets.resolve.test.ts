// Where a delivery goes, read when it is sent: a module's webhook (or why none), a data source, a
// report's webhook destination.
import { describe, expect, it, onTestFinished } from 'vitest';
import { makeSqliteStore } from '../../helpers/db.js';
import { systemClock } from '../../../src/ports/clock.js';
import { createLocalBus } from '../../../src/adapters/local/bus.js';
import { createEventPipeline } from '../../../src/domain/event/pipeline.js';
import { resolveTarget } from '../../../src/worker/webhook/delivery/resolve-target.js';
import { disableGoneWebhook } from '../../../src/domain/webhook/gone.js';
import type { DeliveryRow } from '../../../src/ports/queue.js';
import type { ModuleRow } from '../../../src/ports/store.js';

const T = '2030-01-01T00:00:00.000Z';
const row = (o: Partial<DeliveryRow>): DeliveryRow => ({
  id: 'd',
  projectId: 1,
  moduleId: 'm',
  kind: 'event',
  eventId: null,
  eventType: null,
  payload: '{}',
  status: 'delivering',
  attempts: [],
  roundAttempts: 0,
  nextAttemptTime: null,
  creationTime: T,
  updateTime: T,
  claimedBy: 'w',
  ...o,
});
const mod = (o: Partial<ModuleRow> = {}): ModuleRow => ({
  projectId: 1,
  id: 'm',
  moduleType: 'webhooks',
  description: null,
  eventWebhook: { url: 'https://e.example/', subscriptions: ['*'], headers: null, body: null, keySealed: 'ke' },
  commandWebhook: { url: 'https://c.example/', keySealed: 'kc' },
  eventDisabled: null,
  commandDisabled: null,
  creationTime: T,
  modificationTime: T,
  ...o,
});

async function store() {
  const { store, cleanup } = await makeSqliteStore();
  onTestFinished(cleanup);
  const bus = createLocalBus();
  onTestFinished(() => bus.close());
  return { store, bus, clock: systemClock, pipeline: createEventPipeline({ store }) };
}

describe('resolveTarget', () => {
  it('finds the event or command webhook of a module, with templates only when set', async () => {
    const deps = await store();
    await deps.store.modules.create(mod({ eventWebhook: { ...mod().eventWebhook!, body: 'x' } }));
    const ev = await resolveTarget(deps, row({ kind: 'event' }));
    expect(ev).toMatchObject({ target: { url: 'https://e.example/', keySealed: 'ke', templates: { headers: null, body: 'x' } } });
    const cmd = await resolveTarget(deps, row({ kind: 'command' }));
    expect(cmd).toMatchObject({ target: { url: 'https://c.example/', keySealed: 'kc' } });
    expect('target' in cmd && cmd.target.templates).toBeFalsy();
  });

  it('drops what has no target: module gone, webhook removed, webhook disabled', async () => {
    const deps = await store();
    expect(await resolveTarget(deps, row({}))).toEqual({ drop: 'MODULE_NOT_FOUND' });
    await deps.store.modules.create(mod({ commandWebhook: null, eventDisabled: { time: T, reason: 'gone' } }));
    expect(await resolveTarget(deps, row({ kind: 'command' }))).toEqual({ drop: 'WEBHOOK_REMOVED' });
    expect(await resolveTarget(deps, row({ kind: 'event' }))).toEqual({ drop: 'WEBHOOK_DISABLED' });
  });

  it('a 410 turns a module webhook off (disableGoneWebhook), and its deliveries are dropped after', async () => {
    const deps = await store();
    await deps.store.modules.create(mod());
    const reason = 'the receiver answered 410 Gone';
    expect(await disableGoneWebhook({ deps, input: { projectId: 1, moduleId: 'm', kind: 'command', reason } })).toBe(true);
    expect((await deps.store.modules.get(1, 'm'))?.commandDisabled?.reason).toBe(reason);
    expect((await deps.store.modules.get(1, 'm'))?.eventDisabled).toBeNull();
    expect(await resolveTarget(deps, row({ kind: 'command' }))).toEqual({ drop: 'WEBHOOK_DISABLED' });
    const logged = await deps.store.logs.list({ projectId: 1 }, { skip: 0, limit: 10 });
    expect(logged.items.map((l) => l.text)).toEqual([expect.stringContaining('command webhook of module m disabled')]);
  });

  it('a 410 from a data-source or report webhook turns nothing off', async () => {
    const deps = await store();
    const reason = 'the receiver answered 410 Gone';
    expect(await disableGoneWebhook({ deps, input: { projectId: 1, moduleId: 'src', kind: 'data', reason } })).toBe(false);
    expect(await disableGoneWebhook({ deps, input: { projectId: 1, moduleId: 'rep', kind: 'report', reason } })).toBe(false);
  });

  it('drops data and report deliveries whose source or report is gone', async () => {
    const deps = await store();
    expect(await resolveTarget(deps, row({ kind: 'data', moduleId: 'src' }))).toEqual({ drop: 'DATA_SOURCE_NOT_FOUND' });
    expect(await resolveTarget(deps, row({ kind: 'report', moduleId: 'rep' }))).toEqual({ drop: 'REPORT_NOT_FOUND' });
  });
});
