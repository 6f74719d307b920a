// BENCH_PROFILE=<dir>: a CPU profile of one measured stage of a bench, written as
// <dir>/<name>.cpuprofile (open it in Chrome DevTools or speedscope), and a sampled allocation
// profile of it, garbage included, as <dir>/<name>.heapprofile (what the young generation and
// V8's GC helper threads work on, issue #26). Only this process is profiled (Hearth runs here;
// load generators and receivers are children), its worker threads not. Unset: fn just runs.
//
// PERF_CTL=<fifo> PERF_STAGE=<name>: `perf record` samples that stage alone, on-CPU and every
// thread (the inspector's profile samples wall time, so a thread preempted on a busy machine
// counts as busy in whatever it was running), without the inspector. Run the bench under
// `perf record -g -D -1 --control=fifo:<fifo>` with NODE_OPTIONS=--perf-basic-prof; the stage
// enables the recording when it starts and disables it when it ends (issue #26). A long run
// reuses code addresses, and perf then names a frame after a stale entry of the map (often a
// module's top level, `…:1:1`): leave those out.
import { Session } from 'node:inspector/promises';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export async function profiled<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const ctl = process.env.PERF_CTL;
  if (ctl && name === process.env.PERF_STAGE) {
    writeFileSync(ctl, 'enable\n');
    try {
      return await fn();
    } finally {
      writeFileSync(ctl, 'disable\n');
    }
  }
  const dir = process.env.BENCH_PROFILE;
  if (!dir) return fn();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 16_384,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  try {
    return await fn();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    const { profile: heap } = await session.post('HeapProfiler.stopSampling');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, name.replace(/[^a-z0-9-]+/gi, '-'));
    writeFileSync(`${file}.cpuprofile`, JSON.stringify(profile));
    writeFileSync(`${file}.heapprofile`, JSON.stringify(heap));
    session.disconnect();
  }
}
