// CPU accounting for benches that span several processes (cluster nodes, PostgreSQL, Redis, load
// generators), from Linux /proc: each group of pids is sampled before and after a measured stage,
// and so is the whole machine, so a report can say how many cores each part used and how many
// went to processes that are not ours (other users of a shared machine).
import { readFileSync } from 'node:fs';
import { cpuMicrosOf } from '../baselines/brokers.js';

/** group name → the pids that make it up at the moment of the sample */
export type PidGroups = Record<string, number[]>;

export interface CpuSample {
  /** performance.now() at the sample */
  at: number;
  /** busy CPU of the whole machine so far (every core), µs */
  machine: number;
  groups: Record<string, Map<number, number>>;
}

export interface CpuUsage {
  seconds: number;
  /** cores the whole machine kept busy on average over the stage */
  machineCores: number;
  /** CPU µs each group used during the stage */
  micros: Record<string, number>;
}

/** busy CPU of every core so far, µs: /proc/stat's first line minus idle and iowait */
export function machineBusyMicros(): number {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already inside user)
  const busy = f[0] + f[1] + f[2] + f[5] + f[6] + (f[7] ?? 0);
  return busy * 10_000; // clock ticks of 10 ms, as cpuMicrosOf assumes
}

/** the command name of a pid (`/proc/<pid>/comm`), undefined when it is not (or no longer) there */
export function commOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

export function sampleCpu(groups: PidGroups): CpuSample {
  const out: CpuSample['groups'] = {};
  for (const [name, pids] of Object.entries(groups)) {
    const m = new Map<number, number>();
    for (const pid of pids) {
      try {
        m.set(pid, cpuMicrosOf(pid));
      } catch {
        // gone between listing and reading: nothing to count
      }
    }
    out[name] = m;
  }
  return { at: performance.now(), machine: machineBusyMicros(), groups: out };
}

/**
 * What each group used between two samples. A pid only in `after` started during the stage (a
 * pool connection opened under load), so all its time counts; a pid only in `before` ended
 * during it and its last stretch is lost (small: such processes were idle).
 */
export function cpuBetween(before: CpuSample, after: CpuSample): CpuUsage {
  const micros: Record<string, number> = {};
  for (const [name, now] of Object.entries(after.groups)) {
    const then = before.groups[name] ?? new Map<number, number>();
    let sum = 0;
    for (const [pid, t] of now) sum += t - (then.get(pid) ?? 0);
    micros[name] = sum;
  }
  const seconds = (after.at - before.at) / 1000;
  return { seconds, machineCores: (after.machine - before.machine) / 1e6 / seconds, micros };
}

// the threads of this process by kind: baselines/threads.ts (the forked servers of baselines/ read them too)
export { selfThreadKinds, selfThreadMicros, type ThreadKind } from '../baselines/threads.js';
import type { ThreadKind } from '../baselines/threads.js';

/**
 * µs per `per` (event, message) each kind of thread used between two selfThreadMicros() samples;
 * `worker` is split into the busiest worker thread (`busiest worker`: the sender thread of a
 * webhook run) and the rest (`other workers`)
 */
export function cpuByThreadKind(
  before: Map<number, number>,
  after: Map<number, number>,
  kindOf: (tid: number) => ThreadKind,
  per: number,
): Record<ThreadKind | 'busiest worker' | 'other workers', number> {
  const out = { main: 0, 'V8 platform': 0, 'libuv pool': 0, worker: 0, 'busiest worker': 0, 'other workers': 0 };
  for (const [tid, t] of after) {
    const used = t - (before.get(tid) ?? 0);
    const kind = kindOf(tid);
    out[kind] += used;
    if (kind === 'worker') out['busiest worker'] = Math.max(out['busiest worker'], used);
  }
  out['other workers'] = out.worker - out['busiest worker'];
  for (const k of Object.keys(out) as (keyof typeof out)[]) out[k] /= per;
  return out;
}

/**
 * cpuByThreadKind's figures, a line each (`<what>, <kind>: N µs CPU`: one figure of an A/B run
 * each, named by its kind, ab.ts); `busiest` names the busiest worker thread
 */
export function threadKindLines(what: string, k: ReturnType<typeof cpuByThreadKind>, busiest = 'busiest worker thread'): string[] {
  const kinds: [string, number][] = [
    ['main thread', k.main],
    ['V8 platform threads', k['V8 platform']],
    ['libuv pool', k['libuv pool']],
    [busiest, k['busiest worker']],
    ['other worker threads', k['other workers']],
  ];
  return kinds.map(([kind, n]) => `${what}, ${kind}: ${n.toFixed(2)} µs CPU`);
}
