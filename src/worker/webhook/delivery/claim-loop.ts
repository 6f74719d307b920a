// The claim loop: keeps the sender (sender-core.ts, in its thread) supplied with due deliveries
// and records what it reports. Rows come from claims of the queue — woken by a bus `work`
// message, a report freeing room, a retry coming due, or the poll timer (the bus may drop
// messages; the queue is the truth) — or are handed over as they are written (handoff.ts). Rows
// are leased; a worker that dies leaves them to be claimed again when the lease ends (at least
// once). The lease is short (webhooks.leaseSeconds, docs/webhooks.md#retries), so a live worker renews
// the leases of the rows it holds every third of it, for as long as the sender may hold a row.
import type { Logger } from 'pino';
import type { Store } from '../../../ports/store.js';
import type { Clock } from '../../../ports/clock.js';
import { laneOf, type DeliveryRow } from '../../../ports/queue.js';
import type { LocalClaimer } from '../../../ports/pipeline.js';
import { resolveTarget, type Resolution } from './resolve-target.js';
import type { Bus } from '../../../ports/bus.js';
import { Holdings } from './holdings.js';
import { Reservations } from './reservations.js';
import { claimed, claimSettled, closed, initialState, laneFreed, loopAsked, pumped, refused, retryWake, stopping } from './runner-state.js';
import { settleAll, type DispatchDeps, type Done } from './dispatch.js';
import { jobOf, type Job, type Target } from '../sender/request.js';
import type { ReportBatch } from '../sender/sender-core.js';
import type { Sender } from '../sender/sender.js';

export interface RunnerOptions {
  concurrency: number;
  pollMs: number;
  /** how long a claimed row stays ours unless renewed (docs/webhooks.md#retries) */
  leaseMs: number;
  /**
   * the longest the sender may hold a row before reporting on it (queue wait, exchange timeout, a
   * margin): leases are renewed for that long, no longer, so a row a broken sender never reports
   * on still goes back to the queue
   */
  holdMs: number;
}

export interface Runner extends LocalClaimer {
  /** claim now if there is room (coalesces: at most one claim query runs at a time) */
  pump(): void;
  /** stop claiming; wait up to graceMs for deliveries in flight, then give the rest back */
  stop(graceMs: number): Promise<void>;
  inflight(): number;
}

// Rows held per lane beyond those in flight (holdings.ts): enough that the sender refills a freed
// slot at once while the next claim (a write transaction, in batches of CLAIM_SLOTS ×
// `concurrency` rows) is under way.
const BUFFER_PER_SLOT = 4;
const CLAIM_SLOTS = 2;

export type MakeSender = (deliver: (batch: ReportBatch) => void) => Sender;

export function createRunner(
  deps: DispatchDeps & { store: Store; bus: Bus; clock: Clock; logger: Logger },
  opts: RunnerOptions,
  makeSender: MakeSender,
): Runner {
  // rows with the sender, until it reports on them
  const outstanding = new Map<string, { row: DeliveryRow; target: Target; lane: string; since: number }>();
  // outcomes (and releases) being written
  const finishing = new Set<Promise<void>>();
  // the loop's state (runner-state.ts): changed only by its transitions
  let state = initialState();
  const holdings = new Holdings(opts.concurrency, BUFFER_PER_SLOT, (lane) => {
    state = laneFreed(state, lane);
  });
  const wake = retryWake(opts.pollMs, () => runner.pump());
  const poll = setInterval(() => runner.pump(), opts.pollMs);
  poll.unref();
  // docs/webhooks.md#retries: the rows with the sender keep their lease while this worker lives
  const renewal = setInterval(() => {
    const now = Date.now();
    const ids = [...outstanding].filter(([, o]) => now - o.since < opts.holdMs).map(([id]) => id);
    if (ids.length === 0) return;
    const leaseUntil = new Date(deps.clock.now().getTime() + opts.leaseMs).toISOString();
    track(deps.store.deliveries.renew(ids, deps.workerId, leaseUntil), 'webhook delivery leases could not be renewed; they may be claimed again');
  }, opts.leaseMs / 3);
  renewal.unref();
  const maxHeld = opts.concurrency * (1 + BUFFER_PER_SLOT);
  const sender = makeSender(onReports);
  const reservations = new Reservations({
    holdings,
    maxHeld,
    leaseMs: opts.leaseMs,
    clock: deps.clock,
    workerId: deps.workerId,
    // once stopping, the sender reports them released and they go back to the queue
    take: (rows) => void take(rows),
    refused: () => {
      state = refused(state);
    },
  });

  function track(p: Promise<unknown>, what: string): void {
    const q: Promise<void> = p.then(
      () => {},
      // the store failed while recording: the lease runs out and the row is tried again
      (err) => deps.logger.error({ err }, what),
    );
    finishing.add(q);
    void q.finally(() => finishing.delete(q));
  }

  const release = (ids: string[]) =>
    track(
      deps.store.deliveries.release(ids, deps.workerId, deps.clock.now().toISOString()),
      'webhook deliveries could not be given back; their lease will run out',
    );

  /** records what became of deliveries finished together, in one outcome write */
  function record(done: Done[]): void {
    if (done.length === 0) return;
    track(
      settleAll(deps, done).then((s) => {
        if (s.retryInMs !== undefined) wake.wakeIn(s.retryInMs);
      }),
      'webhook delivery could not be recorded',
    );
  }

  /** claimed rows (already held): find their targets, then hand them to the sender */
  async function take(rows: DeliveryRow[]): Promise<void> {
    const jobs: Job[] = [];
    // a lane is one webhook: its target is looked up once per batch, whatever its number of rows
    const byLane = new Map<string, DeliveryRow[]>();
    for (const row of rows) {
      const lane = laneOf(row);
      const of = byLane.get(lane);
      if (of) of.push(row);
      else byLane.set(lane, [row]);
    }
    await Promise.all(
      [...byLane].map(async ([lane, of]) => {
        let resolution: Resolution;
        try {
          resolution = await resolveTarget(deps, of[0]);
        } catch (err) {
          // the store failed: the lease runs out and the rows are tried again
          for (const row of of) {
            holdings.unhold(lane);
            deps.logger.error({ err, deliveryId: row.id }, 'webhook delivery target could not be read');
          }
          return;
        }
        if ('drop' in resolution) {
          for (let i = 0; i < of.length; i++) holdings.unhold(lane);
          record(of.map((row) => ({ row, target: undefined, sent: resolution })));
          return;
        }
        const since = Date.now();
        for (const row of of) {
          try {
            jobs.push(jobOf(row, lane, resolution.target, deps.sealer));
            outstanding.set(row.id, { row, target: resolution.target, lane, since });
          } catch (err) {
            // the key cannot be opened: as a failed read, the lease runs out and the row is tried again
            holdings.unhold(lane);
            deps.logger.error({ err, deliveryId: row.id }, 'webhook delivery target could not be read');
          }
        }
      }),
    );
    if (jobs.length === 0) return;
    if (state.life === 'closed') {
      for (const j of jobs) {
        holdings.unhold(outstanding.get(j.id)!.lane);
        outstanding.delete(j.id);
      }
      release(jobs.map((j) => j.id));
      return;
    }
    // once stopping, the sender reports these released at once
    sender.submit(jobs);
  }

  function onReports(batch: ReportBatch): void {
    for (const [lane, cap] of batch.caps) holdings.setCap(lane, cap);
    const released: string[] = [];
    const done: Done[] = [];
    for (const r of batch.reports) {
      const o = outstanding.get(r.id);
      if (!o) continue;
      outstanding.delete(r.id);
      holdings.unhold(o.lane);
      // never started (its lane went slow, or we are stopping): back to the queue untouched
      if ('released' in r) released.push(r.id);
      else done.push({ row: o.row, target: o.target, sent: 'drop' in r ? { drop: r.drop, templateError: true } : { result: r.result } });
    }
    if (released.length > 0) release(released);
    record(done);
    claimLoop();
  }

  async function claimOnce(): Promise<boolean> {
    const room = maxHeld - holdings.total;
    const busy = holdings.total > 0;
    // claim in batches (a claim is a write transaction): wait until CLAIM_SLOTS × `concurrency`
    // rows fit, unless nothing is held
    if (state.life !== 'running' || room <= 0 || (state.drained && busy) || (room < opts.concurrency * CLAIM_SLOTS && busy)) return false;
    const seen = state.signals;
    const now = deps.clock.now();
    const exclude = holdings.fullLanes();
    const rows = await deps.store.deliveries.claim({
      workerId: deps.workerId,
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + opts.leaseMs).toISOString(),
      limit: room,
      excludeLanes: exclude,
    });
    const excluded = new Set(exclude);
    const extra: string[] = [];
    const taken: DeliveryRow[] = [];
    for (const row of rows) {
      const lane = laneOf(row);
      if (state.life !== 'running' || holdings.full(lane)) {
        extra.push(row.id);
        excluded.add(lane);
        continue;
      }
      holdings.hold(lane);
      taken.push(row);
    }
    state = claimed(state, { drained: rows.length < room, excluded });
    // more rows of a lane than it may hold: give them back untouched (the lane is full now, so
    // the next claim passes them over)
    if (extra.length > 0) await deps.store.deliveries.release(extra, deps.workerId, now.toISOString());
    // nothing due was left behind, in any lane: new rows may come straight to us
    const drained = state.drained;
    state = claimSettled(state, { seen, leftBehind: exclude.length > 0 || extra.length > 0 });
    if (taken.length > 0) void take(taken);
    return !drained;
  }

  /** claim until the sender's buffer is full or the queue has nothing more for us */
  function claimLoop(): void {
    const [next, run] = loopAsked(state);
    state = next;
    if (!run) return;
    void (async () => {
      try {
        do {
          state = { ...state, loop: 'claiming' };
          if (await claimOnce()) state = { ...state, loop: 'again' };
        } while (state.loop === 'again' && state.life === 'running');
      } catch (err) {
        deps.logger.error({ err }, 'webhook queue claim failed; retrying at the next poll');
      } finally {
        state = { ...state, loop: 'idle' };
      }
    })();
  }

  const runner: Runner = {
    /** new work may exist (bus, poll, retry timer): claim even if the last claim found nothing */
    pump() {
      state = pumped(state);
      claimLoop();
    },
    reserve: (rows) => (state.handoff && state.life === 'running' ? reservations.reserve(rows) : undefined),
    async stop(graceMs) {
      state = stopping(state);
      clearInterval(poll);
      clearInterval(renewal);
      wake.cancel();
      const deadline = Date.now() + graceMs;
      const left = () => Math.max(0, deadline - Date.now());
      // rows being committed for us: once written they are ours, and go to the sender, which
      // reports them released
      await reservations.settled(left());
      // the sender starts nothing more and reports what it held; exchanges under way have the
      // grace period to finish
      await sender.stop(left());
      let timer: NodeJS.Timeout | undefined;
      if (finishing.size > 0) await Promise.race([Promise.allSettled([...finishing]), new Promise((r) => (timer = setTimeout(r, left())))]);
      clearTimeout(timer);
      state = closed(state);
      // still with the sender (an exchange past the grace period): hand the rows back now rather
      // than after the lease (a late outcome is then refused by the lease check, and the row is
      // simply delivered again)
      const unreported = [...outstanding.keys()];
      outstanding.clear();
      if (unreported.length > 0) await deps.store.deliveries.release(unreported, deps.workerId, deps.clock.now().toISOString()).catch(() => {});
      await Promise.allSettled([...finishing]);
      sender.close();
    },
    inflight: () => outstanding.size + finishing.size,
  };
  return runner;
}
