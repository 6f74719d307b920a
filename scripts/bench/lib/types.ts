// What every bench gets and returns (see scripts/bench/index.ts).
export interface BenchOptions {
  /** concurrent connections of the load generator */
  connections: number;
  /** measured run per target */
  durationSeconds: number;
  /** discarded run before each measured one (JIT, caches, connection set-up) */
  warmupSeconds: number;
}

export interface BenchResult {
  /** whether the bench met its floor */
  pass: boolean;
  /** one line for the summary */
  summary: string;
}

export interface LoadFigures {
  target: string;
  requestsPerSecond: number;
  /** milliseconds */
  p50: number;
  /** milliseconds */
  p99: number;
  requests: number;
  /** CPU time of this process (where the server runs) per request, microseconds */
  cpuMicrosPerRequest: number;
  /** the same by kind of thread (lib/proc-cpu.ts cpuByThreadKind), when asked for */
  threads?: Record<string, number>;
  /** of figures that are medians over rounds (lib/load.ts measureInterleaved): each round's */
  rounds?: LoadFigures[];
  errors: number;
  non2xx: number;
}
