// `npm run bench -- cluster`: cluster mode (issue #6) with one broker node and with two. Real
// processes (lib/cluster-nodes.ts): an api node and broker nodes (`node dist/src/main.js`, the built server,
// PostgreSQL schema, Redis prefix and secret of the run's own). No worker node: device events with
// no webhook module and commands never touch one.
//   1 broker:  broker-1 + api          2 brokers: broker-1 + broker-2 + api
// broker-2 only runs while the 2-broker configuration is measured (a node that merely exists
// already receives cluster traffic), and the two configurations alternate over the rounds so
// drifting load on the shared machine falls on both. Measured, with the existing load generators
// (baselines/mqtt-load.ts children):
// - ingest: devices publish QoS 1 events (PUBACK once committed), split evenly over the brokers,
//   from two load children in both configurations: events/s and CPU per event;
// - commands: `PUT /devices/{id}/command` through the api node until the device, connected to a
//   broker node, has it: one client at a time (latency) and several clients at once (commands/s).
// CPU comes from /proc for every process involved, and for the whole machine, so the report can
// say what limits the scaling here: PostgreSQL counts the backends of this cluster's nodes (by
// application_name) plus the server's own processes (WAL writer...), Redis the whole server
// (shared with whatever else uses it). No floor (the issue gives none): the verdict is
// informational. Knobs: BENCH_CLUSTER_{PUBLISHERS,EVENTS,ROUNDS,COMMANDS,COMMAND_CLIENTS},
// HEARTH_BENCH_DATABASE_URL / HEARTH_BENCH_REDIS_URL, BENCH_PROFILE=<dir> (node CPU profiles).
import { availableParallelism, loadavg } from 'node:os';
import pg from 'pg';
import { createSqlStore } from '../../src/adapters/sql/store.js';
import type { Hearth } from '../../src/main.js';
import { forkChild, seedDevices, type Child } from './baselines/brokers.js';
import type { CommandJob, PublishJob } from './baselines/mqtt-load.js';
import { adminKeyOf, createCluster, postgresPids, reachable, redisPid, type Cluster, type ClusterNode } from './lib/cluster-nodes.js';
import { cpuBetween, sampleCpu, type PidGroups } from './lib/proc-cpu.js';
import { printReport, type Commands, type ConfigFigures, type Stage } from './lib/cluster-report.js';
import type { BenchOptions, BenchResult } from './lib/types.js';

function num(name: string, dflt: number): number {
  const raw = process.env[name];
  const n = raw === undefined ? dflt : Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got ${raw}`);
  return n;
}

const PUBLISHERS = num('BENCH_CLUSTER_PUBLISHERS', 10);
const PER_PUBLISHER = num('BENCH_CLUSTER_EVENTS', 5000);
const ROUNDS = num('BENCH_CLUSTER_ROUNDS', 2);
const COMMANDS = num('BENCH_CLUSTER_COMMANDS', 1000);
const CLIENTS = num('BENCH_CLUSTER_COMMAND_CLIENTS', 4);
const WINDOW = 50;
/** load children for ingest, the same number in both configurations */
const LOADERS = 2;
const WARM_COMMANDS = 200;
const CORES = availableParallelism();

type Device = { id: number; key: string };

interface Ctx {
  cluster: Cluster;
  api: ClusterNode;
  adminKey: string;
  ingestDevices: Device[];
  commandDevices: Device[];
  monitor: pg.Client;
  redisPid: number | undefined;
  children: Set<Child>;
}

async function groups(ctx: Ctx, brokers: ClusterNode[], load: Child[]): Promise<PidGroups> {
  const g: PidGroups = {};
  for (const b of brokers) g[b.name] = [b.pid];
  g.api = [ctx.api.pid];
  g.postgres = await postgresPids(ctx.monitor, ctx.cluster);
  g.redis = ctx.redisPid ? [ctx.redisPid] : [];
  g.load = [process.pid, ...load.map((c) => c.proc.pid!)];
  return g;
}

async function fork(ctx: Ctx): Promise<Child> {
  const c = await forkChild('./mqtt-load.ts');
  ctx.children.add(c);
  c.proc.once('exit', () => ctx.children.delete(c));
  return c;
}

/** QoS 1 events from every ingest device, devices split evenly over the brokers */
async function ingestOnce(ctx: Ctx, brokers: ClusterNode[], perPublisher: number): Promise<Stage> {
  const loaders = await Promise.all(Array.from({ length: LOADERS }, () => fork(ctx)));
  try {
    await Promise.all(
      loaders.map((c, i) => {
        const broker = brokers[i % brokers.length];
        const mine = ctx.ingestDevices.filter((_, k) => k % LOADERS === i);
        const job: PublishJob = {
          type: 'publish',
          url: `mqtt://127.0.0.1:${broker.mqttPort}`,
          publishers: mine.map((d) => ({ username: String(d.id), password: d.key, topic: `/devices/${d.id}/event` })),
          count: perPublisher,
          window: WINDOW,
        };
        return c.request(job, 'ready');
      }),
    );
    const before = sampleCpu(await groups(ctx, brokers, loaders));
    const published = loaders.map((c) => c.wait('published', 300_000));
    const t0 = performance.now();
    for (const c of loaders) c.proc.send({ type: 'go' });
    await Promise.all(published);
    const seconds = (performance.now() - t0) / 1000;
    const usage = cpuBetween(before, sampleCpu(await groups(ctx, brokers, loaders)));
    const count = perPublisher * ctx.ingestDevices.length;
    return { count, perSecond: count / seconds, usage };
  } finally {
    await Promise.all(loaders.map((c) => c.close()));
  }
}

/** each client: its own device on a broker, PUTs through the api node one at a time */
async function commandsOnce(ctx: Ctx, brokers: ClusterNode[], clients: Child[]): Promise<Commands> {
  const job = (j: number, count: number): CommandJob => {
    const d = ctx.commandDevices[j];
    // one client: on the last broker (the added one in the 2-broker configuration)
    const broker = brokers[(clients.length === 1 ? brokers.length - 1 : j) % brokers.length];
    return {
      type: 'commands',
      putUrl: `http://127.0.0.1:${ctx.api.httpPort}/devices/${d.id}/command`,
      headers: { authorization: `ModeCloud ${ctx.adminKey}` },
      device: { kind: 'mqtt', url: `mqtt://127.0.0.1:${broker.mqttPort}`, username: String(d.id), password: d.key, topic: `/devices/${d.id}/command` },
      count,
      warmup: 0,
    };
  };
  await Promise.all(clients.map((c, j) => c.request(job(j, WARM_COMMANDS), 'latencies', 120_000)));
  const before = sampleCpu(await groups(ctx, brokers, clients));
  const t0 = performance.now();
  const runs = await Promise.all(clients.map((c, j) => c.request<{ latencies: number[] }>(job(j, COMMANDS), 'latencies', 300_000)));
  const seconds = (performance.now() - t0) / 1000;
  const usage = cpuBetween(before, sampleCpu(await groups(ctx, brokers, clients)));
  const s = runs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { count: s.length, p50: at(0.5), p99: at(0.99), perSecond: s.length / seconds, usage };
}

const othersOf = (s: Stage) => Math.max(0, s.usage.machineCores - Object.values(s.usage.micros).reduce((a, m) => a + m, 0) / 1e6 / s.usage.seconds).toFixed(2);
const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

export async function run(_opts: BenchOptions): Promise<BenchResult> {
  const databaseUrl = process.env.HEARTH_BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const redisUrl = process.env.HEARTH_BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
  const unreachable = await reachable(databaseUrl, redisUrl);
  if (unreachable) {
    console.log(`  skipped: ${unreachable} (set HEARTH_BENCH_DATABASE_URL / HEARTH_BENCH_REDIS_URL)`);
    return { pass: true, summary: `skipped (${unreachable.split(':')[0]} not reachable)` };
  }
  const load0 = loadavg();
  console.log(
    `  ${PUBLISHERS} devices x ${PER_PUBLISHER} QoS 1 events (window ${WINDOW}, ${LOADERS} load children); commands: 1 client, then ${CLIENTS} at once, ${COMMANDS} each`,
  );
  console.log(`  ${ROUNDS} rounds alternating 1 broker / 2 brokers, best round kept; ${CORES} cores, load average ${load0.map((x) => x.toFixed(2)).join(' ')}`);

  const cluster = createCluster({
    databaseUrl,
    redisUrl,
    env: {
      // out of the way: they exist to stop floods, not to be measured (the checks still run)
      HEARTH_MQTT_RATE_LIMIT_PUBLISHES_PER_SECOND: '100000000',
      HEARTH_MQTT_RATE_LIMIT_BURST: '200000000',
      HEARTH_RATE_LIMIT_PER_SECOND: '10000000',
      HEARTH_RATE_LIMIT_BURST: '20000000',
    },
  });
  const children = new Set<Child>();
  let monitor: pg.Client | undefined;
  const seen: ClusterNode[] = [];
  let cleaning: Promise<void> | undefined;
  const cleanUp = () =>
    (cleaning ??= (async () => {
      for (const c of children) c.proc.kill('SIGKILL');
      await monitor?.end().catch(() => {});
      await cluster.close();
    })());
  // `on`, not `once`: a Ctrl-C reaches this process twice (from the terminal's process group and
  // relayed by the tsx CLI), and a second one without a listener would kill it mid-clean-up
  const onSignal = (signal: NodeJS.Signals) => {
    if (cleaning) return;
    console.error(`\n  ${signal}: stopping the cluster and removing schema ${cluster.schema}, keys ${cluster.redisPrefix}*`);
    cleanUp().then(
      () => process.exit(130),
      (e) => {
        console.error(e);
        process.exit(130);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const best: Record<'1 broker' | '2 brokers', Partial<ConfigFigures>> = { '1 broker': {}, '2 brokers': {} };
  try {
    // the first node creates the schema and the project (its admin key lands in its data directory)
    const api = await cluster.start('api', 'api');
    const broker1 = await cluster.start('broker-1', 'broker');
    seen.push(api, broker1);
    monitor = new pg.Client({ connectionString: cluster.benchDatabaseUrl });
    monitor.on('error', () => {});
    await monitor.connect();

    const store = await createSqlStore({ url: cluster.benchDatabaseUrl, schema: cluster.schema, poolSize: 2 });
    let ingestDevices: Device[];
    let commandDevices: Device[];
    try {
      const homeId = (await store.homes.create({ projectId: 1, name: 'bench', creationTime: new Date().toISOString() })).id;
      // seedDevices needs only the store and the secret of a Hearth
      const seeder = { deps: { store, secret: cluster.secret } } as unknown as Hearth;
      ingestDevices = await seedDevices(seeder, PUBLISHERS, { homeId });
      commandDevices = await seedDevices(seeder, CLIENTS);
    } finally {
      await store.close();
    }
    const ctx: Ctx = { cluster, api, adminKey: adminKeyOf(api), ingestDevices, commandDevices, monitor, redisPid: await redisPid(redisUrl), children };
    if (!ctx.redisPid) console.log('  Redis is not a process of this machine: its CPU is not counted');
    const clients = await Promise.all(Array.from({ length: CLIENTS }, () => fork(ctx)));

    const measure = async (label: '1 broker' | '2 brokers', brokers: ClusterNode[], round: number) => {
      await ingestOnce(ctx, brokers, Math.ceil(PER_PUBLISHER / 5));
      const ingest = await ingestOnce(ctx, brokers, PER_PUBLISHER);
      const single = await commandsOnce(ctx, brokers, clients.slice(0, 1));
      const many = await commandsOnce(ctx, brokers, clients);
      console.log(
        `    round ${round} ${label.padEnd(9)} ${fmt(ingest.perSecond).padStart(6)} events/s  1 client p50 ${single.p50.toFixed(2)} ms  ${CLIENTS} clients ${fmt(many.perSecond).padStart(5)} commands/s  (machine ${ingest.usage.machineCores.toFixed(2)} / ${many.usage.machineCores.toFixed(2)} cores busy, ${othersOf(ingest)} / ${othersOf(many)} of them not ours)`,
      );
      const b = best[label];
      if (!b.ingest || ingest.perSecond > b.ingest.perSecond) b.ingest = ingest;
      if (!b.single || single.p50 < b.single.p50) b.single = single;
      if (!b.many || many.perSecond > b.many.perSecond) b.many = many;
    };
    for (let round = 1; round <= ROUNDS; round++) {
      await measure('1 broker', [broker1], round);
      const broker2 = await cluster.start('broker-2', 'broker');
      seen.push(broker2);
      try {
        await measure('2 brokers', [broker1, broker2], round);
      } finally {
        await broker2.stop();
      }
    }
    for (const c of clients) await c.close();
  } finally {
    // warnings the nodes logged (they run at warn level): nothing is expected here
    for (const n of seen.filter((x) => x.output().trim()))
      console.log(
        `  ${n.name} printed:\n${n
          .output()
          .trim()
          .split('\n')
          .slice(-10)
          .map((l) => `    ${l.slice(0, 300)}`)
          .join('\n')}`,
      );
    await cleanUp();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }

  const one = best['1 broker'] as ConfigFigures;
  const two = best['2 brokers'] as ConfigFigures;
  const r = printReport(one, two, { clients: CLIENTS, window: WINDOW });
  const load1 = loadavg();
  console.log(
    `  load average at the end ${load1.map((x) => x.toFixed(2)).join(' ')} (start ${load0.map((x) => x.toFixed(2)).join(' ')}); no floor: informational`,
  );
  return {
    pass: true,
    summary: `informational: ingest ${fmt(one.ingest.perSecond)} → ${fmt(two.ingest.perSecond)} events/s (${r.ingestRatio.toFixed(2)}x), commands ${fmt(one.many.perSecond)} → ${fmt(two.many.perSecond)}/s (${r.commandRatio.toFixed(2)}x), 1-client p50 ${one.single.p50.toFixed(2)} → ${two.single.p50.toFixed(2)} ms; limit: ${r.ingestLimit.split(' (')[0]}`,
  };
}
