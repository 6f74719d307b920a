// Where an MQTT event's PUBACK time goes inside Hearth (issue #26), bench-only: the running
// Hearth's objects are wrapped for one stage and put back after, so the product pays nothing for
// it outside. For every event published (QoS 1) on the hook, from Aedes's authorizePublish:
//   - hook:   authorizePublish entered -> the event handed to the pipeline (parse, checks, fan-out);
//   - wait:   handed to the pipeline -> its batch's transaction begins (of which `behind sync`:
//             the part spent while the batch before was still in its WAL fdatasync);
//   - commit: the batch's transaction (BEGIN .. COMMIT with synchronous=NORMAL: SQL, WAL write,
//             and the checkpoint when this COMMIT takes the WAL past its limit);
//   - gap:    commit done -> the fdatasync asked for;
//   - sync:   the WAL's fdatasync on libuv's pool, as the event loop sees it (the pool thread's
//             syscall plus the wait for the loop to take its completion);
//   - ack:    sync done -> Aedes told (done()), which writes the PUBACK at once.
// And per batch: the WAL file's size before and after the stage (a growing file makes every
// fdatasync commit the inode's size too).
import { statSync, writeFileSync } from 'node:fs';

interface EventTimes {
  hook: number;
  in?: number;
  batch?: number;
  done?: number;
}

interface BatchTimes {
  /** the database file changed during its commit: the COMMIT checkpointed the WAL into it */
  checkpointed?: boolean;
  /** the database file's stamp when it began and once committed (a change between: a checkpoint, whichever commit ran it) */
  stampStart?: string;
  stampCommitted?: string;
  start: number;
  committed?: number;
  syncStart?: number;
  synced?: number;
  items: number;
}

/** what the wrapping needs of a running Hearth (main.ts startHearth's answer) */
export interface Traced {
  deps: {
    pipeline: { commit: (item: never) => Promise<void> };
    store: { transaction: (fn: never, how?: { syncLater?: boolean; whole?: boolean }) => Promise<unknown>; synced: () => Promise<void> };
  };
  broker?: { aedes: { authorizePublish: (client: never, packet: never, done: (err?: Error | null) => void) => void } };
}

export interface CommitSplit {
  events: number;
  batches: number;
  /** name -> [p50, p90, p99, max] ms */
  parts: Record<string, number[]>;
  wal: { before: number; after: number; grewIn: number };
  /** batches whose COMMIT checkpointed, and their commit's duration, ms (p50, max) */
  checkpoints: { count: number; p50: number; max: number };
  /**
   * the slowest 1% of events (hook -> PUBACK at or over its p99): their mean of each part, and how
   * many of them waited behind or were in a checkpointing commit
   */
  tail: { events: number; mean: Record<string, number>; checkpointed: number };
  /** the share of all events near a checkpoint (as the tail's count) */
  nearCheckpoint: number;
  /** the share of events whose batch's fdatasync alone took 5 ms or more (issue #26's p99 target) */
  syncOver5: number;
}

const PARTS = ['hook', 'wait', 'behind sync', 'commit', 'gap', 'sync', 'ack', 'hook -> PUBACK'] as const;

/** starts tracing; the returned function puts everything back and gives the split */
export function traceCommits(hearth: Traced, walFile: string): () => CommitSplit {
  const { pipeline, store } = hearth.deps as unknown as {
    pipeline: { commit: (item: unknown) => Promise<void> };
    store: { transaction: (fn: unknown, how?: { whole?: boolean }) => Promise<unknown>; synced: () => Promise<void> };
  };
  const aedes = hearth.broker!.aedes as unknown as { authorizePublish: (c: unknown, p: unknown, done: (err?: Error | null) => void) => void };
  const events: EventTimes[] = [];
  const batches: BatchTimes[] = [];
  const walSize = () => statSync(walFile, { throwIfNoEntry: false })?.size ?? 0;
  const dbFile = walFile.replace(/-wal$/, '');
  const dbStamp = () => {
    const st = statSync(dbFile, { throwIfNoEntry: false, bigint: true });
    return st ? `${st.mtimeNs}:${st.size}` : '';
  };
  const walBefore = walSize();
  let lastWal = walBefore;
  let grewIn = 0;
  let current: EventTimes | undefined;
  /** the batch whose transaction began last, and whether its sync is asked for */
  let open: BatchTimes | undefined;
  let queued: EventTimes[] = [];

  const origAuthorize = aedes.authorizePublish;
  aedes.authorizePublish = (client, packet, done) => {
    const e: EventTimes = { hook: performance.now() };
    events.push(e);
    current = e;
    try {
      origAuthorize.call(aedes, client, packet, (err) => {
        e.done = performance.now();
        done(err);
      });
    } finally {
      current = undefined;
    }
  };
  const origCommit = pipeline.commit;
  pipeline.commit = (item) => {
    if (current) {
      current.in = performance.now();
      queued.push(current);
    }
    return origCommit(item);
  };
  const origTransaction = store.transaction;
  store.transaction = function (this: unknown, fn, how) {
    // the outbox's transaction (pipeline.ts OUTBOX_COMMIT); the events queued so far are its batch
    if (!how?.whole) return origTransaction.call(store, fn, how);
    const b: BatchTimes = { start: performance.now(), items: queued.length };
    for (const e of queued) e.batch = batches.length;
    queued = [];
    batches.push(b);
    open = b;
    const stamp = (b.stampStart = dbStamp());
    return origTransaction.call(store, fn, how).finally(() => {
      b.committed = performance.now();
      b.stampCommitted = dbStamp();
      b.checkpointed = b.stampCommitted !== stamp;
    });
  };
  const origSynced = store.synced;
  store.synced = () => {
    const b = open;
    if (b) b.syncStart = performance.now();
    return origSynced.call(store).finally(() => {
      if (b) b.synced = performance.now();
      const size = walSize();
      if (size > lastWal) grewIn++;
      lastWal = size;
    });
  };

  return () => {
    // BENCH_COMMIT_SPLIT=<file>.json: every batch's times (epoch ms) as well, to line up with a syscall trace
    const dump = process.env.BENCH_COMMIT_SPLIT;
    if (dump?.endsWith('.json')) {
      const epoch = (t: number | undefined) => (t === undefined ? null : performance.timeOrigin + t);
      writeFileSync(
        dump,
        JSON.stringify(
          batches.map((b) => ({ ...b, start: epoch(b.start), committed: epoch(b.committed), syncStart: epoch(b.syncStart), synced: epoch(b.synced) })),
        ),
      );
    }
    aedes.authorizePublish = origAuthorize;
    pipeline.commit = origCommit;
    store.transaction = origTransaction;
    store.synced = origSynced;
    const parts: Record<string, number[]> = Object.fromEntries(PARTS.map((p) => [p, [] as number[]]));
    let n = 0;
    const rows: { total: number; parts: number[]; checkpointed: boolean }[] = [];
    for (const e of events) {
      if (e.in === undefined || e.batch === undefined || e.done === undefined) continue;
      const b = batches[e.batch];
      if (b.committed === undefined || b.syncStart === undefined || b.synced === undefined) continue;
      n++;
      const prev = batches[e.batch - 1];
      parts['hook'].push(e.in - e.hook);
      parts['wait'].push(b.start - e.in);
      parts['behind sync'].push(prev?.synced !== undefined ? Math.max(0, Math.min(b.start, prev.synced) - e.in) : 0);
      parts['commit'].push(b.committed - b.start);
      parts['gap'].push(b.syncStart - b.committed);
      parts['sync'].push(b.synced - b.syncStart);
      parts['ack'].push(e.done - b.synced);
      parts['hook -> PUBACK'].push(e.done - e.hook);
      const own = PARTS.map((k) => parts[k][parts[k].length - 1]);
      // it waited behind the commit before its own, or was in it
      // a checkpoint from the previous batch's start to the end of its own commit, run by any commit
      // (the event pipeline's or another's): it waited behind it, was in it, or in the commit
      // after it, which syncs the restarted WAL's header
      rows.push({ total: e.done - e.hook, parts: own, checkpointed: prev !== undefined && prev.stampStart !== b.stampCommitted });
    }
    rows.sort((x, y) => x.total - y.total);
    const tailRows = rows.slice(Math.floor(rows.length * 0.99));
    const mean: Record<string, number> = {};
    PARTS.forEach((k, i) => (mean[k] = tailRows.reduce((a, r) => a + r.parts[i], 0) / (tailRows.length || 1)));
    const cp = batches.filter((b) => b.checkpointed && b.committed !== undefined).map((b) => b.committed! - b.start);
    cp.sort((x, y) => x - y);
    const pct = (a: number[], p: number) => a[Math.min(a.length - 1, Math.floor(a.length * p))] ?? 0;
    const out: Record<string, number[]> = {};
    for (const [k, a] of Object.entries(parts)) {
      a.sort((x, y) => x - y);
      out[k] = [pct(a, 0.5), pct(a, 0.9), pct(a, 0.99), a[a.length - 1] ?? 0];
    }
    return {
      events: n,
      batches: batches.length,
      parts: out,
      wal: { before: walBefore, after: walSize(), grewIn },
      checkpoints: { count: cp.length, p50: pct(cp, 0.5), max: cp[cp.length - 1] ?? 0 },
      tail: { events: tailRows.length, mean, checkpointed: tailRows.filter((r) => r.checkpointed).length },
      nearCheckpoint: rows.filter((r) => r.checkpointed).length / (rows.length || 1),
      syncOver5: parts['sync'].filter((v) => v >= 5).length / (n || 1),
    };
  };
}

/** the split's lines, as the bench prints them */
export function commitSplitLines(prefix: string, s: CommitSplit): string[] {
  const ms = (v: number) => v.toFixed(2);
  return [
    `${prefix}: ${s.events} events in ${s.batches} batches; per event ms p50/p90/p99/max:`,
    ...Object.entries(s.parts).map(([k, [p50, p90, p99, max]]) => `${prefix}   ${k.padEnd(15)} ${ms(p50)} / ${ms(p90)} / ${ms(p99)} / ${ms(max)}`),
    `${prefix}: WAL file ${s.wal.before} -> ${s.wal.after} bytes, grew during ${s.wal.grewIn} of the syncs; ${s.checkpoints.count} checkpointing commits (p50 ${ms(s.checkpoints.p50)} ms, longest ${ms(s.checkpoints.max)} ms)`,
    `${prefix}: ${(100 * s.syncOver5).toFixed(1)}% of the events waited 5 ms or more for their own batch's fdatasync alone`,
    `${prefix}: the slowest 1% (${s.tail.events} events, ${s.tail.checkpointed} near a checkpoint, against ${(100 * s.nearCheckpoint).toFixed(1)}% of all events: one ran, in any commit, from the start of the batch before theirs to the end of their commit), mean ms: ${Object.entries(
      s.tail.mean,
    )
      .map(([k, v]) => `${k} ${ms(v)}`)
      .join(', ')}`,
  ];
}
