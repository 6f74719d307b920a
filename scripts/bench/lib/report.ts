// Printing bench figures: one row per target, then ratios against the baselines.
import type { LoadFigures } from './types.js';

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function printTable(rows: LoadFigures[]): void {
  console.log(
    `  ${'target'.padEnd(22)} ${'req/s'.padStart(10)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'requests'.padStart(10)} ${'cpu µs/req'.padStart(11)} ${'errors'.padStart(7)} ${'non-2xx'.padStart(8)}`,
  );
  for (const r of rows) {
    console.log(
      `  ${r.target.padEnd(22)} ${fmt(r.requestsPerSecond).padStart(10)} ${fmt(r.p50, 1).padStart(8)} ${fmt(r.p99, 1).padStart(8)} ${fmt(r.requests).padStart(10)} ${fmt(r.cpuMicrosPerRequest).padStart(11)} ${String(r.errors).padStart(7)} ${String(r.non2xx).padStart(8)}`,
    );
  }
}

export const ratio = (a: LoadFigures, b: LoadFigures): number => a.requestsPerSecond / b.requestsPerSecond;
export const fmtRatio = (x: number): string => `${x.toFixed(2)}x`;

/** how many times cheaper in CPU the baseline is: a contention-proof companion to the req/s ratio */
export const cpuRatio = (a: LoadFigures, b: LoadFigures): number => b.cpuMicrosPerRequest / a.cpuMicrosPerRequest;
