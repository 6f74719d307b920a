// Printing `npm run bench -- cluster` (scripts/bench/cluster.ts): the two configurations side by
// side, the scaling ratios, where the CPU went, and a "what limits it" line derived from it.
import { availableParallelism } from 'node:os';
import type { CpuUsage } from './proc-cpu.js';

export interface Stage {
  perSecond: number;
  /** operations in the stage (events, commands) */
  count: number;
  usage: CpuUsage;
}
export interface Commands extends Stage {
  p50: number;
  p99: number;
}
export interface ConfigFigures {
  ingest: Stage;
  /** one client, one command at a time: latency */
  single: Commands;
  /** several clients at once: throughput */
  many: Commands;
}

const CORES = availableParallelism();
const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const isBroker = (g: string) => g.startsWith('broker');
/** what a deployment runs: the Hearth nodes, PostgreSQL, Redis (not the load generators) */
const isServer = (g: string) => g !== 'load';

const micros = (u: CpuUsage, pick: (g: string) => boolean) => Object.entries(u.micros).reduce((a, [g, m]) => (pick(g) ? a + m : a), 0);
const cores = (u: CpuUsage, pick: (g: string) => boolean) => micros(u, pick) / 1e6 / u.seconds;
const others = (u: CpuUsage) => Math.max(0, u.machineCores - cores(u, () => true));
/** server CPU per operation, µs */
const perOp = (s: Stage, pick: (g: string) => boolean = isServer) => micros(s.usage, pick) / s.count;

function coresLine(u: CpuUsage): string {
  const parts = Object.keys(u.micros).map((g) => `${g} ${cores(u, (x) => x === g).toFixed(2)}`);
  return `${parts.join(', ')}; other processes ${others(u).toFixed(2)}; machine ${u.machineCores.toFixed(2)} of ${CORES}`;
}

/** the first clause: is the machine, one process, or neither the bound? */
function bound(u: CpuUsage, roundTrips: string): string {
  const top = Object.keys(u.micros)
    .map((g) => [g, cores(u, (x) => x === g)] as const)
    .sort((a, b) => b[1] - a[1]);
  const where = `Hearth nodes ${cores(u, (g) => isBroker(g) || g === 'api').toFixed(2)}, PostgreSQL ${cores(u, (g) => g === 'postgres').toFixed(2)}, Redis ${cores(u, (g) => g === 'redis').toFixed(2)}, load generators ${cores(u, (g) => g === 'load').toFixed(2)}, other processes ${others(u).toFixed(2)}`;
  // a 2-core machine at 80 % is about as busy as the scheduler lets it be between wake-ups
  if (u.machineCores >= 0.8 * CORES) return `CPU: the ${CORES} cores are busy (${u.machineCores.toFixed(2)}: ${where})`;
  const [g, c] = top[0];
  if (c >= 0.85 && g !== 'load')
    return `one process: ${g} at ${c.toFixed(2)} cores, a single event loop (machine ${u.machineCores.toFixed(2)} of ${CORES}: ${where})`;
  return `no core saturated (machine ${u.machineCores.toFixed(2)} of ${CORES}: ${where}): ${roundTrips}`;
}

const shared = (u: CpuUsage, unit: string, why = '') =>
  others(u) >= 0.3
    ? `; other processes took ${others(u).toFixed(2)} cores, so the ${unit} ratio is noise, not scaling${why}; trust the CPU-per-operation figures`
    : '';

/**
 * The throughput the server side could reach here without the load generators and other
 * processes: the lower of what its single-threaded hot process allows (1 s of CPU / its µs per
 * operation, times the number of such processes sharing the work) and what the cores allow
 * (cores × 1 s / server µs per operation). An estimate: a Node process can use a little more than
 * one core (GC threads), and commit round trips are not in it.
 */
function ceiling(s: Stage, hot: (g: string) => boolean, processes: number): { loop: number; cores: number; value: number; by: string } {
  const loop = (processes * 1e6) / perOp(s, hot);
  const cores = (CORES * 1e6) / perOp(s);
  return { loop, cores, value: Math.min(loop, cores), by: loop < cores ? 'event loop' : 'cores' };
}

function ceilingLine(what: string, hotName: string, one: Stage, two: Stage, hot: (g: string) => boolean, processes: [number, number]): string {
  const a = ceiling(one, hot, processes[0]);
  const b = ceiling(two, hot, processes[1]);
  const k = (n: number) => `${(n / 1000).toFixed(1)}k`;
  return `  ceiling estimate, ${what} (server CPU only, on ${CORES} cores): 1 broker min(${hotName} ${k(a.loop)}, cores ${k(a.cores)}) = ${k(a.value)}/s (${a.by}); 2 brokers min(${hotName} ${k(b.loop)}, cores ${k(b.cores)}) = ${k(b.value)}/s (${b.by}); ${(b.value / a.value).toFixed(2)}x`;
}

function ingestLimit(one: ConfigFigures, two: ConfigFigures, window: number): string {
  const a = perOp(one.ingest);
  const b = perOp(two.ingest);
  const cost =
    b > a * 1.05
      ? `costs ${(((b - a) / a) * 100).toFixed(0)} % more server CPU per event (${fmt(a)} → ${fmt(b)} µs)`
      : `costs about the same server CPU per event (${fmt(a)} → ${fmt(b)} µs)`;
  return `${bound(two.ingest.usage, `each device waits for its PUBACKs (window ${window}), i.e. for the group commits`)}; a second broker on the same cores ${cost}${shared(two.ingest.usage, 'events/s', ' (among many runnable processes, two brokers simply win a larger share of the cores)')}`;
}

function commandLimit(one: ConfigFigures, two: ConfigFigures): string {
  const api = (f: ConfigFigures) => fmt(perOp(f.many, (g) => g === 'api'));
  return `${bound(two.many.usage, 'each client waits for its command to arrive before the next PUT')}; every PUT goes through the one api node (${api(one)} → ${api(two)} µs api CPU per command), which brokers do not add to${shared(two.many.usage, 'commands/s')}`;
}

export function printReport(
  one: ConfigFigures,
  two: ConfigFigures,
  o: { clients: number; window: number },
): { ingestRatio: number; commandRatio: number; ingestLimit: string; commandLimit: string } {
  const rows = [
    ['1 broker', one],
    ['2 brokers', two],
  ] as const;
  console.log(`  ingest      ${'events/s'.padStart(9)} ${'µs CPU/event: brokers'.padStart(22)} ${'server'.padStart(7)} ${'all'.padStart(6)}`);
  for (const [label, f] of rows) {
    console.log(
      `  ${label.padEnd(11)} ${fmt(f.ingest.perSecond).padStart(9)} ${fmt(perOp(f.ingest, isBroker), 1).padStart(22)} ${fmt(perOp(f.ingest), 1).padStart(7)} ${fmt(
        perOp(f.ingest, () => true),
        1,
      ).padStart(6)}`,
    );
  }
  console.log(
    `  commands    ${'1 client p50'.padStart(12)} ${'p99'.padStart(6)} ${`${o.clients} clients/s`.padStart(12)} ${'p50'.padStart(6)} ${'p99'.padStart(6)} ${'µs CPU/cmd: api'.padStart(16)} ${'server'.padStart(7)}`,
  );
  for (const [label, f] of rows) {
    console.log(
      `  ${label.padEnd(11)} ${f.single.p50.toFixed(2).padStart(12)} ${f.single.p99.toFixed(2).padStart(6)} ${fmt(f.many.perSecond).padStart(12)} ${f.many.p50.toFixed(2).padStart(6)} ${f.many.p99.toFixed(2).padStart(6)} ${fmt(perOp(f.many, (g) => g === 'api')).padStart(16)} ${fmt(perOp(f.many)).padStart(7)}`,
    );
  }
  const ingestRatio = two.ingest.perSecond / one.ingest.perSecond;
  const commandRatio = two.many.perSecond / one.many.perSecond;
  console.log(
    `  scaling 2 brokers / 1 broker, measured: ingest ${ingestRatio.toFixed(2)}x events/s, commands ${commandRatio.toFixed(2)}x commands/s (${o.clients} clients), 1-client p50 ${(two.single.p50 / one.single.p50).toFixed(2)}x`,
  );
  console.log(
    `  scaling if CPU-bound (server µs per operation, 1 broker / 2 brokers): ingest ${(perOp(one.ingest) / perOp(two.ingest)).toFixed(2)}x, commands ${(perOp(one.many) / perOp(two.many)).toFixed(2)}x`,
  );
  console.log('  cores used (CPU time / wall time; server = Hearth nodes + PostgreSQL backends of this cluster + Redis):');
  for (const [label, f] of rows) {
    console.log(`    ingest, ${label.padEnd(9)}   ${coresLine(f.ingest.usage)}`);
    console.log(`    commands, ${label.padEnd(9)} ${coresLine(f.many.usage)}`);
  }
  console.log(ceilingLine('ingest', 'broker loops', one.ingest, two.ingest, isBroker, [1, 2]));
  console.log(ceilingLine('commands', 'api loop', one.many, two.many, (g) => g === 'api', [1, 1]));
  const il = ingestLimit(one, two, o.window);
  const cl = commandLimit(one, two);
  console.log(`  what limits it (2 brokers), ingest:   ${il}`);
  console.log(`  what limits it (2 brokers), commands: ${cl}`);
  return { ingestRatio, commandRatio, ingestLimit: il, commandLimit: cl };
}
