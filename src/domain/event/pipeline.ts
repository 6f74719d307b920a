// The event pipeline's process-wide state, as one object built once per store by main.ts (or a
// test) and passed in `Deps.pipeline` (docs/architecture.md#floors-and-imports: no module-level state):
//   - the outbox: every accepted event and its webhook deliveries, group-committed
//     (group-commit.ts) in one transaction;
//   - the webhook target cache: each project's modules (domain/webhook/event-targets.ts);
//   - the local hand-off: workers of this process that take new deliveries as they are written
//     (domain/webhook/handoff.ts);
//   - the per-minute event counters of the fleet figures (docs/api.md#fleet-figures), added in
//     the commit's transaction: one upsert per commit, whatever the number of events in it;
//   - the time-series points the events of a commit carry for tsdb modules, written right after
//     it in one transaction of their own, and the count of dropped points (docs/timeseries.md#sending-points).
// Two Hearths in one process (tests, benches) build two pipelines and share nothing.
import { minuteOf, tally, type PresenceWrite, type StatCount, type Store, type TsdbPoint } from '../../ports/store.js';
import type { EventPipeline, OutboxItem, Reservation } from '../../ports/pipeline.js';
import { LocalHandoff } from '../webhook/handoff.js';
import { TargetCache } from '../webhook/target-cache.js';
import { GroupCommit } from './group-commit.js';
import { DroppedPoints } from '../tsdb/dropped.js';

type PipelineStore = Pick<Store, 'modules' | 'transaction' | 'synced' | 'logs' | 'devices'>;

export function createEventPipeline(deps: { store: PipelineStore }): EventPipeline {
  const { store } = deps;
  const handoff = new LocalHandoff();
  const targets = new TargetCache(store);
  const dropped = new DroppedPoints();
  // deliveries committed leased to a worker of this process, handed over once durable
  const committed: Reservation[] = [];
  // only presence flips gather (connect and disconnect storms); events commit as they come
  const outbox = new GroupCommit<OutboxItem>(
    async (items) => {
      for (const r of await commitOutbox(store, handoff, items)) committed.push(r);
      await commitPoints(store, dropped, items);
    },
    {
      gathers: (item) => item.presence !== undefined,
      // REST events: their senders come back once answered, each on its own connection
      senderWaits: (item) => item.senderWaits === true,
      // docs/operations.md#durability: the batch's commits reach the disk off the event loop, which
      // meanwhile reads the next publishes; only then is anyone answered or a delivery sent
      durable: async () => {
        const taken = committed.splice(0);
        try {
          await store.synced();
        } catch (err) {
          for (const r of taken) r.cancel();
          throw err;
        }
        for (const r of taken) r.accept();
      },
    },
  );
  return {
    commit: (item) => outbox.add(item),
    projectModules: (projectId) => targets.modules(projectId),
    invalidateTargets: (projectId) => targets.invalidate(projectId),
    attachClaimer: (claimer) => handoff.attach(claimer),
    commitCounts: () => outbox.counts(),
  };
}

/**
 * One commit of the outbox: the events, the presence flips they report, then their deliveries,
 * one statement (or prepared statement run) per table. A connect storm thus writes presence in a
 * few transactions, not one per device. Deliveries a worker of this process has room for are written leased
 * to it and handed over once durable (domain/webhook/handoff.ts): their reservations are returned; the rest wait in the queue.
 * The commit may return before it is on disk (`syncLater`): the outbox's `durable` waits for that.
 */
async function commitOutbox(store: Pick<Store, 'transaction'>, handoff: LocalHandoff, items: OutboxItem[]): Promise<Reservation[]> {
  const deliveries = items.length === 1 ? items[0].deliveries : items.flatMap((i) => i.deliveries);
  const { reservations, rest } = deliveries.length > 0 ? handoff.reserve(deliveries) : { reservations: [], rest: deliveries };
  // docs/api.md#fleet-figures: a comparison or two per event; the batch's counts go in with its rows
  const counts: StatCount[] = [];
  for (const i of items) tally(counts, i.row.projectId, 'events', minuteOf(i.row.event.timestamp));
  try {
    await store.transaction(async (tx) => {
      await tx.events.insertMany(items.map((i) => i.row));
      const presence = items.length === 1 ? (items[0].presence ? [items[0].presence] : undefined) : presenceOf(items);
      if (presence) await tx.devices.setConnectedMany(presence);
      await tx.stats.add(counts);
      for (const r of reservations) await tx.deliveries.insertMany(r.taken, r.claim);
      if (rest.length > 0) await tx.deliveries.insertMany(rest);
    }, OUTBOX_COMMIT);
  } catch (err) {
    for (const r of reservations) r.cancel();
    throw err;
  }
  if (rest.length > 0) {
    const queued = new Set(rest);
    for (const i of items) i.queued = i.deliveries.some((d) => queued.has(d));
  }
  return reservations;
}

/** the outbox's commits: durable once `store.synced()` resolves (the outbox's `durable`) */
const SYNC_LATER = { syncLater: true } as const;
/**
 * and all or nothing as a whole: commitOutbox's body catches nothing, and a batch that fails is
 * retried item by item (group-commit.ts). On SQLite each repository's step then runs without a
 * savepoint of its own: inside one, the events' and deliveries' multi-row inserts kept their undo
 * pages in a sub-journal that grew over the whole step and spilled to a temporary file
 */
const OUTBOX_COMMIT = { syncLater: true, whole: true } as const;

/** the presence flips of a batch; a device's connect and disconnect never share one (presence.ts orders them) */
function presenceOf(items: OutboxItem[]): PresenceWrite[] | undefined {
  let out: PresenceWrite[] | undefined;
  for (const i of items) if (i.presence) (out ??= []).push(i.presence);
  return out;
}

/**
 * docs/timeseries.md#sending-points: the points of the committed events, in one transaction right after
 * theirs (one batch of statements for every event of the commit). The events are already
 * accepted: a store that refuses the points loses them, counted and logged, never failing the
 * events. Events without points cost one property read each.
 */
async function commitPoints(store: PipelineStore, dropped: DroppedPoints, items: OutboxItem[]): Promise<void> {
  let points: TsdbPoint[] | undefined;
  for (const i of items) {
    if (!i.points) continue;
    if (i.points.points.length > 0) points = points ? points.concat(i.points.points) : i.points.points;
    if (i.points.dropped > 0) await countDropped(store, dropped, i.row.projectId, i.points.dropped, 'not a {seriesId, timestamp, value} point');
  }
  if (!points) return;
  try {
    await store.transaction((tx) => tx.tsdb.ingest(points), SYNC_LATER);
  } catch (err) {
    const perProject = new Map<number, number>();
    for (const p of points) perProject.set(p.projectId, (perProject.get(p.projectId) ?? 0) + 1);
    for (const [projectId, n] of perProject) await countDropped(store, dropped, projectId, n, `the store refused them: ${(err as Error).message}`);
  }
}

async function countDropped(store: PipelineStore, dropped: DroppedPoints, projectId: number, n: number, why: string): Promise<void> {
  const now = new Date();
  const text = dropped.add(projectId, n, why, now.getTime());
  if (!text) return;
  // straight to the store (log/write.ts imports deps.ts, which imports this file): level 2 is `warn`
  await store.logs.insert({ projectId, caller: null, level: 2, source: 'data', text, timestamp: now.toISOString() }).catch(() => {});
}
