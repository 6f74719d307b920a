// The threads of this process by kind, and the CPU each has used: Node 20 names every thread
// `node`. In baselines/ because the servers forked here (server.ts) report their own; lib/proc-cpu.ts
// re-exports them for the benches that run Hearth in their own process (ingest, webhooks).
import { pbkdf2 } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, read, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * CPU µs each thread of this process has used so far, by thread id; empty without /proc. From the
 * scheduler's own account (`se.sum_exec_runtime` of /proc/self/task/<tid>/sched, to the
 * nanosecond) where the kernel has it: /proc's stat counts 10 ms ticks, half a µs per message of
 * a 20,000-message round, as large as what a helper thread uses per message.
 */
export function selfThreadMicros(): Map<number, number> {
  const out = new Map<number, number>();
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const sched = /se\.sum_exec_runtime\s*:\s*([\d.]+)/.exec(readSched(tid));
      if (sched) {
        out.set(Number(tid), Number(sched[1]) * 1000); // ms
        continue;
      }
      const f = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
      out.set(Number(tid), (Number(f[11]) + Number(f[12])) * 10_000); // utime + stime, clock ticks of 10 ms
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/** /proc/self/task/<tid>/sched, '' where the kernel has none (built without CONFIG_SCHED_DEBUG) */
function readSched(tid: string): string {
  try {
    return readFileSync(`/proc/self/task/${tid}/sched`, 'utf8');
  } catch {
    return '';
  }
}

/**
 * The kinds of thread of this process (issue #26: the CPU an event costs outside the main and
 * sender threads). Node 20 names every thread `node`, so they are told apart by what they do and
 * when they started (thread ids grow as threads start):
 *  - `main`: the event loop, whose id is the process's;
 *  - `libuv pool`: the UV_THREADPOOL_SIZE threads found blocked in reads of an empty FIFO given
 *    them at once (found here; else those that ran the most of some pbkdf2 jobs, which a V8
 *    helper's task meanwhile can confuse): asynchronous file calls (fsync and fdatasync
 *    included), DNS lookups and zlib run there;
 *  - `V8 platform`: those started before the pool, which Node starts before any JavaScript runs
 *    (the module loader's first file read starts the pool): V8's GC helpers (parallel scavenge,
 *    concurrent marking, sweeping) and its background compilers, and an idle signal watchdog;
 *  - `worker`: those started after the pool: worker_threads (Hearth's sender thread, its
 *    access-log thread), each with its own event loop.
 * The pool is found by giving it work: call this before the measured stage, not during it.
 */
export async function selfThreadKinds(): Promise<(tid: number) => ThreadKind> {
  const pool = (await poolBlockedOnFifo()) ?? (await poolByPbkdf2());
  // the pool's threads start together: a thread between two of them is one of them
  const first = Math.min(...pool);
  const last = Math.max(...pool);
  return (tid) => (tid === process.pid ? 'main' : tid < first ? 'V8 platform' : tid <= last ? 'libuv pool' : 'worker');
}

/**
 * The pool's threads, each blocked in a read of an empty FIFO (/proc/self/task/<tid>/syscall:
 * read is syscall 0 on x86-64 and arm64's number is 63, its first argument the descriptor) until
 * as many reads as the pool has threads are under way; undefined where that cannot be seen
 */
async function poolBlockedOnFifo(): Promise<number[] | undefined> {
  const size = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  const dir = mkdtempSync(join(tmpdir(), 'hearth-bench-pool-'));
  try {
    const fifo = join(dir, 'fifo');
    if (spawnSync('mkfifo', [fifo]).status !== 0) return undefined;
    // read and write: opening does not wait for a writer, and a write below answers the reads
    const fd = openSync(fifo, constants.O_RDWR);
    try {
      const reads = Array.from({ length: size }, () => new Promise((r) => read(fd, Buffer.alloc(1), 0, 1, null, r)));
      const blocked = new RegExp(`^(0|63) 0x${fd.toString(16)} `);
      let found: number[] = [];
      for (let i = 0; i < 400 && found.length < size; i++) {
        await new Promise((r) => setTimeout(r, 5));
        found = [];
        for (const tid of readdirSync('/proc/self/task')) {
          try {
            if (blocked.test(readFileSync(`/proc/self/task/${tid}/syscall`, 'utf8'))) found.push(Number(tid));
          } catch {
            // not readable here, or the thread ended
          }
        }
      }
      writeSync(fd, Buffer.alloc(size));
      await Promise.all(reads);
      return found.length === size ? found : undefined;
    } finally {
      closeSync(fd);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** the pool's size of threads that used the most CPU while 4 pbkdf2 jobs each were given at once */
async function poolByPbkdf2(): Promise<number[]> {
  const size = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  const before = selfThreadMicros();
  await Promise.all(Array.from({ length: 4 * size }, () => new Promise((r) => pbkdf2('hearth', 'bench', 50_000, 32, 'sha256', r))));
  const used = [...selfThreadMicros()].filter(([tid]) => tid !== process.pid).map(([tid, t]) => [tid, t - (before.get(tid) ?? 0)] as const);
  // each ran jobs of milliseconds, where a V8 helper that ran a GC or compile task meanwhile used less
  return used
    .sort((a, b) => b[1] - a[1])
    .slice(0, size)
    .map(([tid]) => tid);
}

export type ThreadKind = 'main' | 'V8 platform' | 'libuv pool' | 'worker';
