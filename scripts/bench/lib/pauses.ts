// What stopped this process's event loop during a stage of a bench: the event-loop delay
// (perf_hooks.monitorEventLoopDelay, every 1 ms) and V8's GC pauses by kind. Under a loaded machine
// latency percentiles swing with the scheduler; these are the steadier evidence of what a change
// did to the pauses (issue #26: SQLite's checkpoints and GC, at half load).
import { monitorEventLoopDelay, PerformanceObserver, constants } from 'node:perf_hooks';

interface GcFigures {
  count: number;
  totalMs: number;
  maxMs: number;
}

export interface Pauses {
  /** event-loop delay percentiles and maximum, ms */
  delay: { p50: number; p99: number; max: number };
  /** scavenges (young generation) and mark-compacts (the whole heap) */
  minor: GcFigures;
  major: GcFigures;
}

/** starts watching; the returned function stops and gives what was seen since */
export function watchPauses(): () => Pauses {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const minor: GcFigures = { count: 0, totalMs: 0, maxMs: 0 };
  const major: GcFigures = { count: 0, totalMs: 0, maxMs: 0 };
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as { detail?: { kind?: number } }).detail?.kind;
      const into = kind === constants.NODE_PERFORMANCE_GC_MINOR ? minor : kind === constants.NODE_PERFORMANCE_GC_MAJOR ? major : undefined;
      if (!into) continue;
      into.count++;
      into.totalMs += e.duration;
      into.maxMs = Math.max(into.maxMs, e.duration);
    }
  });
  gc.observe({ entryTypes: ['gc'] });
  return () => {
    delay.disable();
    gc.disconnect();
    const ms = (ns: number) => ns / 1e6;
    return { delay: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) }, minor, major };
  };
}

/** one line of figures: no ratio and no "µs CPU" in it, so A/B runs (ab.ts) print it without comparing it */
export function pausesLine(p: Pauses): string {
  const gc = (g: GcFigures) => `${g.count} (${g.totalMs.toFixed(0)} ms, longest ${g.maxMs.toFixed(1)} ms)`;
  return `event-loop delay p50 ${p.delay.p50.toFixed(1)} ms, p99 ${p.delay.p99.toFixed(1)} ms, longest ${p.delay.max.toFixed(1)} ms; GC pauses: scavenges ${gc(p.minor)}, mark-compacts ${gc(p.major)}`;
}
