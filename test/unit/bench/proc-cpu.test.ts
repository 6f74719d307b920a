// The benches' kinds of thread (scripts/bench/lib/proc-cpu.ts selfThreadKinds, issue #26): Node 20
// names every thread `node`, so the split of an event's CPU between the event loop, V8's helpers,
// libuv's pool and worker threads rests on telling them apart by what they do and when they started.
import { readlinkSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { cpuByThreadKind, selfThreadKinds, selfThreadMicros } from '../../../scripts/bench/lib/proc-cpu.js';

const POOL = Number(process.env.UV_THREADPOOL_SIZE ?? 4);

describe.runIf(process.platform === 'linux')('kinds of thread of this process', () => {
  it('finds the event loop, the libuv pool, V8 platform threads started before it and a worker started after it', async () => {
    // a worker thread says its own thread id (/proc/thread-self is <pid>/task/<tid>)
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       parentPort.postMessage(Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop()));
       parentPort.on('message', () => { let x = 0; for (let i = 0; i < 2e7; i++) x += i; parentPort.postMessage(x); });`,
      { eval: true },
    );
    try {
      const workerTid = await new Promise<number>((resolve) => worker.once('message', resolve));
      const kindOf = await selfThreadKinds();
      const tids = [...selfThreadMicros().keys()];
      expect(kindOf(process.pid)).toBe('main');
      expect(kindOf(Number(readlinkSync('/proc/thread-self').split('/').pop()))).toBe('main');
      expect(kindOf(workerTid)).toBe('worker');
      // exactly the pool's threads, one after another, between V8's and the worker
      const pool = tids.filter((t) => kindOf(t) === 'libuv pool');
      expect(pool).toHaveLength(POOL);
      expect(tids.filter((t) => kindOf(t) === 'V8 platform').length).toBeGreaterThan(0);
      expect(Math.max(...tids.filter((t) => kindOf(t) === 'V8 platform'))).toBeLessThan(Math.min(...pool));
      expect(workerTid).toBeGreaterThan(Math.max(...pool));

      // what the worker burns is counted as the busiest worker's, not as the main thread's
      const before = selfThreadMicros();
      worker.postMessage('go');
      await new Promise((resolve) => worker.once('message', resolve));
      const k = cpuByThreadKind(before, selfThreadMicros(), kindOf, 1);
      expect(k['busiest worker']).toBeGreaterThan(k.main);
    } finally {
      await worker.terminate();
    }
  });
});
