// The claim loop: keep up to `concurrency` deliveries in flight, fed from a small local buffer of
// claimed rows so that one claim query serves many deliveries. It claims when the buffer runs low
// — woken by a bus `work` message, a finished delivery, a retry coming due, or the poll timer
// (the bus may drop messages; the queue is the truth). Rows are leased; a worker that dies leaves
// them to be claimed again when the lease ends (at least once).
import type { Logger } from 'pino';
import type { Store } from '../../ports/store.js';
import type { Clock } from '../../ports/clock.js';
import { laneOf, type DeliveryRow } from '../../ports/queue.js';
import { resolveTarget } from './targets.js';
import { Lanes } from './lanes.js';
import { dispatch, type DispatchDeps } from './dispatch.js';
import { ClaimBuffer, type Buffered } from './claim-buffer.js';

export interface RunnerOptions {
  concurrency: number;
  pollMs: number;
  /** how long a claimed row stays ours: the exchange timeout plus a margin for the store write */
  leaseMs: number;
}

export interface Runner {
  /** claim now if there is room (coalesces: at most one claim query runs at a time) */
  pump(): void;
  /** stop claiming; wait up to graceMs for deliveries in flight, then give the rest back */
  stop(graceMs: number): Promise<void>;
  inflight(): number;
}

// Claimed rows held per lane beyond those in flight: enough to refill at once, few enough that a
// lane going slow does not sit on rows another worker could deliver.
const BUFFER_PER_SLOT = 1;

export function createRunner(deps: DispatchDeps & { store: Store; clock: Clock; logger: Logger }, opts: RunnerOptions): Runner {
  const lanes = new Lanes(opts.concurrency);
  const inflight = new Map<string, Promise<void>>();
  const buffer = new ClaimBuffer();
  // lanes left out of the last claim: a slot freeing in one of them is a reason to claim again
  let excluded = new Set<string>();
  // the last claim took every claimable row: more come only from new work, a freed excluded
  // lane, a retry coming due, or the poll
  let drained = false;
  let claiming = false;
  let again = false;
  let stopped = false;
  let wakeTimer: NodeJS.Timeout | undefined;
  let wakeAt = Infinity;
  const poll = setInterval(() => runner.pump(), opts.pollMs);
  poll.unref();
  const maxBuffer = opts.concurrency * (1 + BUFFER_PER_SLOT);

  /** a retry due sooner than the next poll wakes the loop itself */
  function wakeIn(ms: number): void {
    const at = Date.now() + ms;
    if (ms >= opts.pollMs || at >= wakeAt) return;
    clearTimeout(wakeTimer);
    wakeAt = at;
    wakeTimer = setTimeout(() => {
      wakeAt = Infinity;
      runner.pump();
    }, Math.max(0, ms));
    wakeTimer.unref();
  }

  function start(b: Buffered): void {
    const { row, lane } = b;
    const run = resolveTarget(deps, row)
      .then((target) => dispatch(deps, row, target))
      .then(
        (r) => {
          lanes.release(lane, r.signal);
          if (r.retryInMs !== undefined) wakeIn(r.retryInMs);
        },
        (err) => {
          // the store failed while recording: the lease runs out and the row is tried again
          lanes.release(lane, 'neutral');
          deps.logger.error({ err, deliveryId: row.id }, 'webhook delivery could not be recorded');
        },
      )
      .finally(() => {
        inflight.delete(row.id);
        if (excluded.has(lane)) drained = false;
        startBuffered();
        claimLoop();
      });
    inflight.set(row.id, run);
  }

  /** start buffered rows while there are slots, each lane within its cap */
  function startBuffered(): void {
    if (stopped) return;
    let slots = opts.concurrency - inflight.size;
    // tryAcquire reserves the lane slot; the worker slot is counted here until start() takes it
    const runnable = buffer.take((b) => slots > 0 && lanes.tryAcquire(b.lane) && slots-- > 0);
    for (const b of runnable) start(b);
  }

  /** rows a lane cannot start soon (it went slow) go back to the queue before their lease ends */
  async function releaseStale(now: number): Promise<void> {
    const stale = buffer.stale(now, opts.leaseMs / 4);
    if (stale.length > 0) await deps.store.deliveries.release(stale.map((b) => b.row.id), deps.workerId, deps.clock.now().toISOString());
  }

  /** a lane holds at most its cap in flight plus as many again buffered */
  const held = (lane: string) => lanes.inflightOf(lane) + buffer.countOf(lane);
  const limitOf = (lane: string) => lanes.capOf(lane) * (1 + BUFFER_PER_SLOT);
  const fullLanes = () => lanes.known().filter((l) => held(l) >= limitOf(l));

  async function claimOnce(): Promise<boolean> {
    await releaseStale(Date.now());
    const room = maxBuffer - inflight.size - buffer.size;
    // claim in batches: wait until a quarter of the buffer is free, unless nothing is running
    if (stopped || room <= 0 || (drained && inflight.size + buffer.size > 0) || (room < opts.concurrency / 4 && inflight.size + buffer.size > 0)) return false;
    const now = deps.clock.now();
    const exclude = fullLanes();
    const rows = await deps.store.deliveries.claim({
      workerId: deps.workerId,
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + opts.leaseMs).toISOString(),
      limit: room,
      excludeLanes: exclude,
    });
    excluded = new Set(exclude);
    drained = rows.length < room;
    const extra: string[] = [];
    const at = Date.now();
    for (const row of rows) {
      const lane = laneOf(row);
      if (stopped || held(lane) >= limitOf(lane)) {
        extra.push(row.id);
        excluded.add(lane);
        continue;
      }
      buffer.push({ row, lane, at });
    }
    // more rows of a lane than it may hold: give them back untouched (the lane is full now, so
    // the next claim passes them over)
    if (extra.length > 0) await deps.store.deliveries.release(extra, deps.workerId, now.toISOString());
    startBuffered();
    return !drained;
  }

  /** claim until the buffer is full or the queue has nothing more for us */
  function claimLoop(): void {
    if (stopped) return;
    if (claiming) {
      again = true;
      return;
    }
    claiming = true;
    void (async () => {
      try {
        do {
          again = false;
          if (await claimOnce()) again = true;
        } while (again && !stopped);
      } catch (err) {
        deps.logger.error({ err }, 'webhook queue claim failed; retrying at the next poll');
      } finally {
        claiming = false;
      }
    })();
  }

  const runner: Runner = {
    /** new work may exist (bus, poll, retry timer): claim even if the last claim found nothing */
    pump() {
      drained = false;
      claimLoop();
    },
    async stop(graceMs) {
      stopped = true;
      clearInterval(poll);
      clearTimeout(wakeTimer);
      const unstarted = buffer.drain().map((b) => b.row.id);
      const pending = [...inflight.values()];
      let timer: NodeJS.Timeout | undefined;
      if (pending.length > 0) await Promise.race([Promise.allSettled(pending), new Promise((r) => (timer = setTimeout(r, graceMs)))]);
      clearTimeout(timer);
      // buffered and still in flight: hand the rows back now rather than after the lease (a late
      // outcome is then refused by the lease check, and the row is simply delivered again)
      const left = [...unstarted, ...inflight.keys()];
      if (left.length > 0) await deps.store.deliveries.release(left, deps.workerId, deps.clock.now().toISOString()).catch(() => {});
    },
    inflight: () => inflight.size,
  };
  return runner;
}
