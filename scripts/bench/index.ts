// Benchmark registry: `npm run bench` runs every bench, `npm run bench -- api [other ...]` only
// the named ones. Each bench is a module whose `run()` starts what it measures, prints its
// figures and a PASS/FAIL verdict against its floor, and cleans up. Benches print; tests never
// assert on timings (a shared 2-core machine is too noisy for that).
//
// `npm run bench -- --against <rev> [--rounds N] [--same-harness] <bench...>` runs the named benches
// from this checkout and from <rev> alternately and compares their ratios (lib/ab.ts).
//
// To add one (ingest, commands, connections, webhooks...): write scripts/bench/<name>.ts
// exporting `run(opts: BenchOptions): Promise<BenchResult>` and add a line to BENCHES.
import type { BenchOptions, BenchResult } from './lib/types.js';
import { parseAbArgs, runAb } from './lib/ab.js';

const BENCHES: Record<string, { what: string; load: () => Promise<{ run(o: BenchOptions): Promise<BenchResult> }> }> = {
  api: { what: 'HTTP API: Hearth GET /devices/{id} vs bare Hono vs bare node:http', load: () => import('./api.js') },
  webhooks: { what: 'device events until the webhook receiver has them vs a bare node:http keep-alive POST loop', load: () => import('./webhooks.js') },
  'webhook-client': {
    what: 'the delivery stage alone: CPU per exchange of the webhook client (hand-written pool vs undici), same run',
    load: () => import('./webhook-client.js'),
  },
  ingest: { what: 'MQTT QoS 1 device events committed and on the bus vs bare Aedes (and Mosquitto) forwarding QoS 1 10→1', load: () => import('./ingest.js') },
  commands: {
    what: 'PUT /devices/{id}/command until the device has it (MQTT, WebSocket), p50 / p99, vs bare node:http → Aedes',
    load: () => import('./commands.js'),
  },
  connections: { what: '10,000 connected MQTT devices: resident memory per connection vs bare Aedes (and Mosquitto)', load: () => import('./connections.js') },
  startup: {
    what: 'cold start to a healthy /healthz and resident memory: built server (node dist) vs tsx src/main.ts vs a bare Hono server',
    load: () => import('./startup.js'),
  },
  cli: {
    what: 'one admin CLI command (the bundle through node; built one file per source; and through hearth-admin, npm run admin, npx) vs node -e 0: wall and CPU ms',
    load: () => import('./cli.js'),
  },
  flood: {
    what: 'issue 13 F3: one device key, many persistent sessions x thousands of filters: heap and RSS before/after, /healthz throughout',
    load: () => import('./flood.js'),
  },
  tsdb: {
    what: 'home time series: points/s ingested through MQTT timeSeriesData events; a 30-day avg query over 2.6 million points vs a plain SQL aggregate over them',
    load: () => import('./tsdb.js'),
  },
  fleet: {
    what: 'connect and reconnect storms of a fleet (embedded curve, restarts with and without admission control, a cluster losing a broker) vs bare Aedes and Mosquitto',
    load: () => import('./fleet.js'),
  },
  rollout: {
    what: 'a firmware rollout to the whole fleet (15,000 devices, one node): time until every device is notified, server CPU per device, vs the same commands sent one by one',
    load: () => import('./rollout.js'),
  },
  cluster: {
    what: 'cluster mode, real node processes on PostgreSQL + Redis: event ingest and command latency with 1 broker vs 2, scaling ratio',
    load: () => import('./cluster.js'),
  },
};

function options(): BenchOptions {
  const num = (name: string, dflt: number) => {
    const raw = process.env[name];
    const n = raw === undefined ? dflt : Number(raw);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got ${raw}`);
    return n;
  };
  return {
    connections: num('BENCH_CONNECTIONS', 50),
    durationSeconds: num('BENCH_DURATION', 10),
    warmupSeconds: num('BENCH_WARMUP', 3),
  };
}

async function main(): Promise<void> {
  let ab;
  try {
    ab = parseAbArgs(process.argv.slice(2));
  } catch (err) {
    console.error((err as Error).message);
    process.exit(2);
  }
  const names = ab ? ab.benches : process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const unknown = names.filter((n) => !(n in BENCHES));
  if (unknown.length) {
    console.error(
      `unknown bench: ${unknown.join(', ')}. Known:\n${Object.entries(BENCHES)
        .map(([n, b]) => `  ${n.padEnd(12)} ${b.what}`)
        .join('\n')}`,
    );
    process.exit(2);
  }
  if (ab) return runAb(ab, Object.keys(BENCHES));
  const selected = names.length ? names : Object.keys(BENCHES);
  const opts = options();
  const verdicts: [string, BenchResult][] = [];
  for (const name of selected) {
    console.log(`\n== bench ${name}: ${BENCHES[name].what}`);
    const mod = await BENCHES[name].load();
    verdicts.push([name, await mod.run(opts)]);
  }
  console.log('\n== summary');
  for (const [name, r] of verdicts) console.log(`  ${name.padEnd(12)} ${r.pass ? 'PASS' : 'FAIL'}  ${r.summary}`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
