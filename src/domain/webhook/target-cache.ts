// Which modules an event goes to (docs/webhooks.md#subscriptions), without a query per event: each project's modules
// are cached for a short while. A change (module verbs, a webhook the worker disables) drops the
// entry at once in this process and, through the bus, on every other node of a cluster, which
// then sees it as soon as the message arrives (TTL_MS is the bound should a message be lost, as
// while Redis restarts). A stale entry is harmless: the worker reads the module again before
// sending and drops a delivery whose webhook is gone or disabled.
//
// The cache belongs to one event pipeline (domain/event/pipeline.ts, `deps.pipeline`), built once
// per store by main.ts.
import type { ModuleRow, Store } from '../../ports/store.js';

export const TARGETS_TTL_MS = 2000;
// beyond this many projects the cache starts over rather than grow without bound
const MAX_PROJECTS = 10_000;

interface Entry {
  at: number;
  modules: Promise<ModuleRow[]>;
  /** the modules once read: a hit answers them as they are, without a promise (event ingest) */
  list?: ModuleRow[];
}

/** each project's modules, read from `store` at most once per TTL */
export class TargetCache {
  private readonly cache = new Map<number, Entry>();

  constructor(private readonly store: Pick<Store, 'modules'>) {}

  /**
   * every module of the project (cached); one query per project per TTL at most. A hit whose read
   * has finished is the list itself, not a promise: the event path asks once per event.
   */
  modules(projectId: number): ModuleRow[] | Promise<ModuleRow[]> {
    const cache = this.cache;
    const now = performance.now();
    const hit = cache.get(projectId);
    if (hit && now - hit.at < TARGETS_TTL_MS) return hit.list ?? hit.modules;
    if (cache.size >= MAX_PROJECTS) cache.clear();
    const modules = this.store.modules.list(projectId);
    const entry: Entry = { at: now, modules };
    cache.set(projectId, entry);
    modules.then(
      (list) => {
        entry.list = list;
      },
      // a failed read is not remembered: the next event asks again
      () => {
        if (cache.get(projectId) === entry) cache.delete(projectId);
      },
    );
    return modules;
  }

  invalidate(projectId: number): void {
    this.cache.delete(projectId);
  }
}
