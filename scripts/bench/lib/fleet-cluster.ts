// The fleet bench's cluster part: real processes (lib/cluster-nodes.ts) on PostgreSQL + Redis, an
// api node, a worker and B broker nodes; B x N devices seeded through the store, device i on
// broker i mod B. Measured: the connect storm over all brokers (connects/s, time until the API's
// isConnected count and the brokers' gauges add up to every device), resident memory per broker
// node, the Redis memory of the run's keys (MEMORY USAGE of every key under its prefix) and the
// PostgreSQL schema's size per device; then broker 1 is killed (SIGKILL): its devices reconnect to
// the others (the generators move to the next broker's port), and the time until presence is
// exact again (API count = every device, the live gauges add up to it); it must stay exact once
// the dead node's presence timeout (presence.nodeTimeoutMs) has passed.
import { loadavg } from 'node:os';
import pg from 'pg';
import { createSqlStore } from '../../../src/adapters/sql/store.js';
import { closeRedis, connectRedis } from '../../../src/adapters/redis/client.js';
import { loadConfig } from '../../../src/config/load.js';
import type { Hearth } from '../../../src/main.js';
import { rssOf, seedDevices } from '../baselines/brokers.js';
import type { FleetClient } from '../baselines/fleet-load.js';
import { adminKeyOf, createCluster, postgresPids, reachable, redisPid, type ClusterNode } from './cluster-nodes.js';
import { cpuBetween, sampleCpu, type CpuSample, type PidGroups } from './proc-cpu.js';
import {
  allOf,
  apiConnected,
  fileLimit,
  fmt,
  gauge,
  GAUGE_EVERY_MS,
  keyOf,
  quantile,
  reached,
  refusedOf,
  secs,
  startGenerators,
  until,
  waitMs,
  type Settings,
} from './fleet.js';

const mib = (b: number) => fmt(b / 1024 / 1024, 1);

/** CPU µs per device of each part of the cluster between two samples, one line */
function cpuLine(before: CpuSample, after: CpuSample, devices: number): string {
  const u = cpuBetween(before, after);
  const parts = Object.entries(u.micros).map(([k, v]) => `${k} ${fmt(v / devices)}`);
  const ours = Object.entries(u.micros)
    .filter(([k]) => k !== 'load')
    .reduce((a, [, v]) => a + v, 0);
  return `CPU µs per device: ${parts.join(', ')}; cluster total ${fmt(ours / devices)} (machine ${u.machineCores.toFixed(2)} cores busy)`;
}

async function redisBytes(url: string, prefix: string): Promise<number> {
  const r = await connectRedis({ url });
  try {
    let total = 0;
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      const p = r.pipeline();
      for (const k of keys) p.call('MEMORY', 'USAGE', k);
      for (const [, v] of (await p.exec()) ?? []) total += Number(v) || 0;
    } while (cursor !== '0');
    return total;
  } finally {
    await closeRedis(r);
  }
}

async function schemaBytes(client: pg.Client, schema: string): Promise<number> {
  const r = await client.query<{ b: string }>(
    `select coalesce(sum(pg_total_relation_size(format('%I.%I', schemaname, tablename))), 0) as b from pg_tables where schemaname = $1`,
    [schema],
  );
  return Number(r.rows[0].b);
}

type TableCounts = Map<string, { scans: number; ins: number; upd: number; del: number }>;

/** per table of the schema: index and sequential scans, rows inserted, updated, deleted so far */
async function tableCounts(client: pg.Client, schema: string): Promise<TableCounts> {
  // the statistics collector publishes with a delay: ask for a fresh snapshot
  await client.query('select pg_stat_clear_snapshot()');
  const r = await client.query<{ t: string; scans: string; ins: string; upd: string; del: string }>(
    `select relname as t, coalesce(idx_scan, 0) + coalesce(seq_scan, 0) as scans, n_tup_ins as ins, n_tup_upd as upd, n_tup_del as del from pg_stat_user_tables where schemaname = $1`,
    [schema],
  );
  return new Map(r.rows.map((x) => [x.t, { scans: Number(x.scans), ins: Number(x.ins), upd: Number(x.upd), del: Number(x.del) }]));
}

/** what PostgreSQL did per device between two counts, the busiest tables first: `table scans/ins/upd/del` */
function tableLine(before: TableCounts, after: TableCounts, devices: number): string {
  const rows = [...after].map(([t, a]) => {
    const b = before.get(t) ?? { scans: 0, ins: 0, upd: 0, del: 0 };
    return { t, scans: a.scans - b.scans, ins: a.ins - b.ins, upd: a.upd - b.upd, del: a.del - b.del };
  });
  return rows
    .filter((r) => r.scans + r.ins + r.upd + r.del > 0)
    .sort((x, y) => y.scans + y.ins + y.upd + y.del - (x.scans + x.ins + x.upd + x.del))
    .slice(0, 8)
    .map((r) => `${r.t} ${[r.scans, r.ins, r.upd, r.del].map((n) => fmt(n / devices, 2)).join('/')}`)
    .join(', ');
}

/** Redis commands served so far, by command (the whole server's: other users of a shared Redis count too) */
async function redisCalls(url: string): Promise<Map<string, number>> {
  const r = await connectRedis({ url });
  try {
    const text = await r.info('commandstats');
    return new Map([...text.matchAll(/^cmdstat_(\S+?):calls=(\d+)/gm)].map((m) => [m[1], Number(m[2])]));
  } finally {
    await closeRedis(r);
  }
}

function redisLine(before: Map<string, number>, after: Map<string, number>, devices: number): string {
  const d = [...after].map(([k, v]): [string, number] => [k, v - (before.get(k) ?? 0)]).filter(([, v]) => v > 0);
  const total = d.reduce((a, [, v]) => a + v, 0);
  return `${fmt(total / devices, 1)} (${d
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([k, v]) => `${k} ${fmt(v / devices, 2)}`)
    .join(', ')})`;
}

export async function clusterRun(s: Settings): Promise<{ summary: string; exact: boolean } | undefined> {
  const databaseUrl = process.env.HEARTH_BENCH_DATABASE_URL || process.env.HEARTH_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const redisUrl = process.env.HEARTH_BENCH_REDIS_URL || process.env.HEARTH_TEST_REDIS_URL || 'redis://127.0.0.1:6379';
  const unreachable = await reachable(databaseUrl, redisUrl);
  if (unreachable) {
    console.log(`  cluster skipped: ${unreachable} (set HEARTH_BENCH_DATABASE_URL / HEARTH_BENCH_REDIS_URL)`);
    return undefined;
  }
  const total = s.brokers * s.perBroker;
  const limit = fileLimit();
  const afterKill = s.brokers > 1 ? Math.ceil(total / (s.brokers - 1)) : total;
  console.log(
    `  -- cluster: api + worker + ${s.brokers} brokers x ${fmt(s.perBroker)} devices = ${fmt(total)} (after the kill ${fmt(afterKill)} a broker; open-file limit ${fmt(limit)} a process)`,
  );
  if (afterKill > limit - 1024 || Math.ceil(total / s.generators) > limit - 1024)
    console.log(
      `  warning: ${fmt(afterKill)} devices a broker after the kill, or ${fmt(Math.ceil(total / s.generators))} a generator, do not fit in ${fmt(limit)} open files: lower BENCH_FLEET_CLUSTER_DEVICES or add generators`,
    );
  const cluster = createCluster({
    databaseUrl,
    redisUrl,
    env: { HEARTH_LIMITS_UNAUTHENTICATED_SOCKETS_PER_ADDRESS: String(Math.max(100, s.inflight * 4)) },
  });
  const monitor = new pg.Client({ connectionString: cluster.benchDatabaseUrl });
  monitor.on('error', () => {});
  const gens = await startGenerators(s.generators, s.inflight);
  const onSignal = () => void gens.close().finally(() => cluster.close().finally(() => process.exit(130)));
  process.once('SIGINT', onSignal);
  try {
    const api = await cluster.start('api', 'api');
    await cluster.start('worker', 'worker');
    // the brokers start side by side (one after another took minutes on a busy machine)
    const brokers: ClusterNode[] = await Promise.all(Array.from({ length: s.brokers }, (_, b) => cluster.start(`broker-${b + 1}`, 'broker')));
    console.log(
      `  cluster up (load average ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')})`,
    );
    await monitor.connect();
    const adminKey = adminKeyOf(api);
    const pgBefore = await schemaBytes(monitor, cluster.schema);
    const store = await createSqlStore({ url: cluster.benchDatabaseUrl, schema: cluster.schema, poolSize: 2 });
    let ids: number[];
    const seed0 = performance.now();
    console.log(`  seeding ${fmt(total)} devices (one transaction)...`);
    try {
      const seeder = { deps: { store, secret: cluster.secret } } as unknown as Hearth;
      ids = (await seedDevices(seeder, total, { keyOf })).map((d) => d.id);
    } finally {
      await store.close();
    }
    console.log(
      `  seeded in ${secs(performance.now() - seed0)} s (load average ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')})`,
    );
    const pgSeeded = await schemaBytes(monitor, cluster.schema);
    const redisBefore = await redisBytes(redisUrl, cluster.redisPrefix);
    const rssBefore = brokers.map((b) => rssOf(b.pid));
    const clients: FleetClient[] = ids.map((id, i) => ({
      username: String(id),
      password: keyOf(i),
      clientId: `fleet-${i}`,
      deviceId: id,
      port: i % s.brokers,
    }));
    let killed: ClusterNode | undefined;
    const live = () => brokers.filter((b) => b !== killed);
    const gauges = async () => (await Promise.all(live().map((b) => gauge(b.httpPort)))).reduce((a, x) => a + x, 0);
    const exactNow = async () => allOf(reached('API isConnected', await apiConnected(api.httpPort, adminKey), total), reached('gauges', await gauges(), total));
    const wait = waitMs(total);
    const redis = await redisPid(redisUrl);
    // CPU of the brokers (together), the api and worker, PostgreSQL (this cluster's backends and the
    // server's own processes) and Redis (shared with whoever else uses it) during each storm
    const groups = async (): Promise<PidGroups> => ({
      brokers: live().map((b) => b.pid),
      'api+worker': cluster
        .nodes()
        .filter((n) => !n.roles.includes('broker'))
        .map((n) => n.pid),
      postgres: await postgresPids(monitor, cluster),
      redis: redis ? [redis] : [],
      load: gens.children.map((c) => c.proc.pid!),
    });

    let tables0 = await tableCounts(monitor, cluster.schema);
    let calls0 = await redisCalls(redisUrl);
    let cpu0 = sampleCpu(await groups());
    const t0 = performance.now();
    const c = await gens.connect(
      brokers.map((b) => b.mqttPort),
      clients,
      true,
      wait,
    );
    const exactMs = await until(exactNow, 'cluster presence', t0, wait, GAUGE_EVERY_MS);
    const connectCpu = cpuLine(cpu0, sampleCpu(await groups()), total);
    const connectTables = tableLine(tables0, await tableCounts(monitor, cluster.schema), total);
    const connectCalls = redisLine(calls0, await redisCalls(redisUrl), total);
    await new Promise((r) => setTimeout(r, 2000));
    const rssAfter = brokers.map((b) => rssOf(b.pid));
    const redisAfter = await redisBytes(redisUrl, cluster.redisPrefix);
    const pgAfter = await schemaBytes(monitor, cluster.schema);
    console.log(
      `  connect storm: ${fmt(total)} devices in ${secs(c.ms)} s (${fmt(total / (c.ms / 1000))}/s), CONNACK p50 ${fmt(quantile(c.connack, 0.5), 1)} ms p99 ${fmt(quantile(c.connack, 0.99), 1)} ms; presence exact (API and gauges) after ${secs(exactMs)} s; refused ${refusedOf(c.failures)}`,
    );
    console.log(`  connect storm ${connectCpu}`);
    console.log(`  connect storm PostgreSQL per device (table scans/inserts/updates/deletes): ${connectTables}`);
    console.log(`  connect storm Redis commands per device (the whole server's): ${connectCalls}`);
    brokers.forEach((b, i) =>
      console.log(
        `  ${b.name}: RSS ${mib(rssBefore[i])} → ${mib(rssAfter[i])} MiB, ${fmt((rssAfter[i] - rssBefore[i]) / 1024 / s.perBroker, 1)} KiB per device`,
      ),
    );
    console.log(
      `  Redis: ${fmt((redisAfter - redisBefore) / total)} bytes per connected device (keys ${cluster.redisPrefix}*: ${mib(redisBefore)} → ${mib(redisAfter)} MiB); PostgreSQL: ${fmt((pgSeeded - pgBefore) / total)} bytes per device seeded, ${fmt((pgAfter - pgSeeded) / total)} more once connected (schema ${mib(pgAfter)} MiB, tables and indexes)`,
    );

    // a broker dies: its devices move to the others
    const victim = brokers[0];
    const moving = clients.filter((x) => x.port === 0).length;
    const lostBefore = (await gens.status(true)).lost;
    tables0 = await tableCounts(monitor, cluster.schema);
    calls0 = await redisCalls(redisUrl);
    cpu0 = sampleCpu(await groups());
    const k0 = performance.now();
    killed = victim;
    process.kill(victim.pid, 'SIGKILL');
    const backMs = await until(
      async () => {
        const st = await gens.status();
        return allOf(reached('up', st.up, total), { done: st.lost - lostBefore >= moving, now: `lost ${fmt(st.lost - lostBefore)} of ${fmt(moving)}` });
      },
      'devices reconnected',
      k0,
      waitMs(moving),
    );
    const exactAgainMs = await until(exactNow, 'presence exact after the kill', k0, waitMs(moving), GAUGE_EVERY_MS);
    const moveCpu = cpuLine(cpu0, sampleCpu(await groups()), moving);
    const moveTables = tableLine(tables0, await tableCounts(monitor, cluster.schema), moving);
    const moveCalls = redisLine(calls0, await redisCalls(redisUrl), moving);
    // the dead node's presence times out: nobody who moved may be marked offline by it
    const timeout = loadConfig({}).presence.nodeTimeoutMs;
    console.log(`  presence exact again; waiting ${secs(timeout + 5000)} s for the dead node's presence to time out`);
    await new Promise((r) => setTimeout(r, timeout + 5000));
    const afterTimeout = await apiConnected(api.httpPort, adminKey);
    const stays = afterTimeout === total && (await gauges()) === total;
    const { failures } = await gens.status();
    console.log(
      `  SIGKILL ${victim.name} (${fmt(s.perBroker)} devices): all reconnected after ${secs(backMs)} s, presence exact after ${secs(exactAgainMs)} s (target ≤ 30 s); ${stays ? 'still exact' : `NOT exact (API ${fmt(afterTimeout)})`} after the dead node's timeout (${timeout / 1000} s); refused ${refusedOf(failures)}`,
    );
    console.log(`  after the kill, until exact: ${moveCpu} (per device moved)`);
    console.log(`  after the kill, PostgreSQL per device moved (table scans/inserts/updates/deletes): ${moveTables}`);
    console.log(`  after the kill, Redis commands per device moved (the whole server's): ${moveCalls}`);
    return {
      exact: stays,
      summary: `cluster ${fmt(total)}: ${fmt(total / (c.ms / 1000))} connects/s, exact after ${secs(exactMs)} s; killed broker's devices exact again after ${secs(exactAgainMs)} s`,
    };
  } finally {
    process.off('SIGINT', onSignal);
    await gens.close();
    await monitor.end().catch(() => {});
    for (const n of cluster.nodes().filter((x) => x.output().trim()))
      console.log(
        `  ${n.name} printed:\n${n
          .output()
          .trim()
          .split('\n')
          .slice(-5)
          .map((l) => `    ${l.slice(0, 300)}`)
          .join('\n')}`,
      );
    await cluster.close();
  }
}
