// BENCH_PROFILE=<dir>: a CPU profile of one measured stage of a bench, written as
// <dir>/<name>.cpuprofile (open it in Chrome DevTools or speedscope). Only this process is
// profiled (Hearth runs here; load generators and receivers are children). Unset: fn just runs.
import { Session } from 'node:inspector/promises';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export async function profiled<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_PROFILE;
  if (!dir) return fn();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  try {
    return await fn();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${name.replace(/[^a-z0-9-]+/gi, '-')}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}
