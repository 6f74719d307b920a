// The event fan-out does not read modules once per event: one query per project per short while,
// and a module change made through this process is seen by the very next event.
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { TARGETS_TTL_MS } from '../../../src/domain/webhook/target-cache.js';
import { makeSqliteStore } from '../../helpers/db.js';
import { createLocalBus } from '../../../src/adapters/local/bus.js';
import { systemClock } from '../../../src/ports/clock.js';
import { emitEvent } from '../../../src/domain/event/emit.js';
import { domainParts, toolParts } from '../../../src/roles/deps.js';
import { createModule } from '../../../src/domain/module/create.js';
import type { Caller } from '../../../src/domain/caller.js';

const admin: Caller = { type: 'project key', projectId: 1, keyId: 'k', keyName: 'admin', scopes: ['admin'] };
const noChecks = { checkUrl: async () => {}, checkTemplates: () => {} };

describe('module lookup per event', () => {
  it('reads a project’s modules once for many events, again right after a module change, and again once the TTL has passed', async () => {
    // the cache's clock (performance.now) is the test's: 50 events on a loaded machine once took
    // longer than TARGETS_TTL_MS, and the second read the TTL allows failed the count of one
    vi.useFakeTimers({ toFake: ['performance'] });
    onTestFinished(() => void vi.useRealTimers());
    const { store, cleanup } = await makeSqliteStore();
    const bus = createLocalBus();
    onTestFinished(async () => {
      await bus.close();
      await cleanup();
    });
    const deps = { ...toolParts(), ...domainParts({ store, secret: 'unit-secret-unit-secret' }), store, bus, clock: systemClock };
    await store.projects.create({ name: 'p', creationTime: new Date().toISOString() });
    await createModule({
      deps: { ...deps, checks: noChecks },
      caller: admin,
      input: { projectId: 1, body: { id: 'first', eventWebhook: { url: 'http://127.0.0.1:9/' } } },
    });
    const list = vi.spyOn(store.modules, 'list');
    const event = () => ({ eventType: 't', eventData: {}, timestamp: new Date().toISOString(), homeId: 1 });
    for (let i = 0; i < 50; i++) await emitEvent(deps, { projectId: 1, event: event() });
    expect(list).toHaveBeenCalledTimes(1);
    await createModule({
      deps: { ...deps, checks: noChecks },
      caller: admin,
      input: { projectId: 1, body: { id: 'second', eventWebhook: { url: 'http://127.0.0.1:9/' } } },
    });
    await emitEvent(deps, { projectId: 1, event: event() });
    expect((await store.deliveries.list({ projectId: 1, moduleId: 'second' }, { skip: 0, limit: 10 })).total).toBe(1);
    expect((await store.deliveries.list({ projectId: 1, moduleId: 'first' }, { skip: 0, limit: 100 })).total).toBe(51);
    // the TTL bounds how long a change made elsewhere (a message lost) goes unseen: just before it
    // the list stands, once it has passed the next event reads again
    const reads = list.mock.calls.length;
    vi.advanceTimersByTime(TARGETS_TTL_MS - 1);
    await emitEvent(deps, { projectId: 1, event: event() });
    expect(list).toHaveBeenCalledTimes(reads);
    vi.advanceTimersByTime(1);
    await emitEvent(deps, { projectId: 1, event: event() });
    expect(list).toHaveBeenCalledTimes(reads + 1);
  });
});
