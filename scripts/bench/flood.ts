// `npm run bench -- flood`: issue 13 F3. One device key, many persistent sessions with fresh
// client ids, each subscribing to thousands of its own bulkData response filters, then gone.
// Before the bounds of docs/devices.md#mqtt the heap went from 27 MiB to 3.6 GB in 36 sessions and the
// process died. Prints heap and RSS before and after (after garbage collection when run with
// --expose-gc: `node --expose-gc --import tsx scripts/bench/index.ts flood`), the sessions and
// filters the broker kept, and whether /healthz answered throughout.
// Floor: heap growth under 64 MiB and the persistence holding at most the configured bounds.
// BENCH_FLOOD_SESSIONS (default 40), BENCH_FLOOD_FILTERS (default 5000).
// Then issue 23's KV reload amplification (lib/kv-attack.ts), on SQLite (this process) and in
// cluster mode (an api node and a broker node on PostgreSQL + Redis, skipped when they cannot be
// reached): a store filled to its bound, BENCH_FLOOD_KV_STALLED (8) connections that stop reading
// with BENCH_FLOOD_KV_RELOADS (50) reload publishes each, and one reading connection asking a
// reload 5 times a second for BENCH_FLOOD_KV_SECONDS (20). Floor (the issue's): the broker's
// resident memory under 300 MiB and /healthz within 100 ms throughout.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { loadHearth } from './baselines/hearth.js';
import { seedDevices } from './baselines/brokers.js';
import { flood, mib, settledMemory } from './lib/flood.js';
import type { BenchResult } from './lib/types.js';
import { readFileSync } from 'node:fs';
import { createSqlStore } from '../../src/adapters/sql/store.js';
import type { Hearth } from '../../src/main.js';
import { kvAttack, kvLine, type KvAttackOptions, type KvFigures } from './lib/kv-attack.js';
import { adminKeyOf, createCluster, reachable } from './lib/cluster-nodes.js';

// Hearth as users run it: the built server (baselines/hearth.ts)
const { startHearth } = await loadHearth();

const SESSIONS = Number(process.env.BENCH_FLOOD_SESSIONS ?? 40);
const FILTERS = Number(process.env.BENCH_FLOOD_FILTERS ?? 5000);
const HEAP_FLOOR = 64 * 1024 * 1024;
const KV: KvAttackOptions = {
  stalled: Number(process.env.BENCH_FLOOD_KV_STALLED ?? 8),
  reloads: Number(process.env.BENCH_FLOOD_KV_RELOADS ?? 50),
  seconds: Number(process.env.BENCH_FLOOD_KV_SECONDS ?? 20),
  perSecond: 5,
};
const RSS_FLOOR = 300 * 1024 * 1024;
const HEALTH_FLOOR_MS = 100;
const kvPass = (f: KvFigures) => f.rssMax < RSS_FLOOR && f.healthMax < HEALTH_FLOOR_MS && f.healthFailures === 0;
const rssOfPid = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

/** the KV attack against a cluster's broker node; undefined when PostgreSQL or Redis is not reachable */
async function kvCluster(): Promise<KvFigures | undefined> {
  const databaseUrl = process.env.HEARTH_BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const redisUrl = process.env.HEARTH_BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
  const unreachable = await reachable(databaseUrl, redisUrl);
  if (unreachable) {
    console.log(`  kv cluster: skipped: ${unreachable}`);
    return undefined;
  }
  // each node's default limits: the attack runs as a device key can run it
  const cluster = createCluster({ databaseUrl, redisUrl });
  try {
    const api = await cluster.start('api', 'api');
    const broker = await cluster.start('broker', 'broker');
    const store = await createSqlStore({ url: cluster.benchDatabaseUrl, schema: cluster.schema, poolSize: 2 });
    let device: { id: number; key: string };
    try {
      [device] = await seedDevices({ deps: { store, secret: cluster.secret } } as unknown as Hearth, 1);
    } finally {
      await store.close();
    }
    return await kvAttack(
      {
        apiUrl: `http://127.0.0.1:${api.httpPort}`,
        brokerUrl: `http://127.0.0.1:${broker.httpPort}`,
        mqttPort: broker.mqttPort,
        adminKey: adminKeyOf(api),
        device,
        rss: () => rssOfPid(broker.pid),
      },
      KV,
    );
  } finally {
    await cluster.close();
  }
}

export async function run(): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-bench-flood-'));
  const base = loadConfig({});
  const hearth = await startHearth(
    {
      ...base,
      host: '127.0.0.1',
      http: { ...base.http, port: 0 },
      mqtt: { ...base.mqtt, port: 0 },
      dataDir: dir,
      databaseUrl: null,
      redisUrl: null,
      secret: 'bench-secret-bench-secret-bench',
      logLevel: 'warn',
    },
    pino({ level: 'warn' }),
  );
  try {
    const [device] = await seedDevices(hearth, 1);
    let healthy = 0;
    let unhealthy = 0;
    const before = await settledMemory();
    const started = Date.now();
    const f = await flood({
      url: `mqtt://127.0.0.1:${hearth.mqttPort}`,
      deviceId: device.id,
      key: device.key,
      sessions: SESSIONS,
      filtersPerSession: FILTERS,
      afterSession: async () => {
        const r = await fetch(`http://127.0.0.1:${hearth.httpPort}/healthz`).catch(() => undefined);
        if (r?.status === 200) healthy++;
        else unhealthy++;
      },
    });
    const seconds = (Date.now() - started) / 1000;
    const after = await settledMemory();
    const persistence = (hearth.broker!.aedes as unknown as { persistence: { countOffline(): Promise<{ subsCount: number; clientsCount: number }> } })
      .persistence;
    const kept = await persistence.countOffline();
    const heapGrowth = after.heapUsed - before.heapUsed;
    const gcNote = (globalThis as { gc?: unknown }).gc ? '' : ' (no --expose-gc: figures include garbage)';
    console.log(
      `  flood: ${f.sessions} sessions accepted, ${f.refusedSessions} refused; ${f.granted} filters granted, ${f.refused} refused (SUBACK 0x80); ${seconds.toFixed(1)} s`,
    );
    console.log(
      `  broker keeps ${kept.clientsCount} offline sessions with ${kept.subsCount} subscriptions (bounds: ${base.mqtt.maxSessionsPerDevice} sessions x ${base.mqtt.maxSubscriptionsPerConnection} filters)`,
    );
    console.log(
      `  heap ${mib(before.heapUsed)} -> ${mib(after.heapUsed)} (+${mib(heapGrowth)}), RSS ${mib(before.rss)} -> ${mib(after.rss)} (+${mib(after.rss - before.rss)})${gcNote}`,
    );
    console.log(`  /healthz: ${healthy} answers 200, ${unhealthy} failures`);
    const pass = heapGrowth < HEAP_FLOOR && unhealthy === 0 && kept.subsCount <= base.mqtt.maxSessionsPerDevice * base.mqtt.maxSubscriptionsPerConnection;

    console.log(
      `  kv attack: store filled to its bound, ${KV.stalled} connections stop reading with ${KV.reloads} reloads each, one reader asks ${KV.perSecond}/s for ${KV.seconds} s`,
    );
    const [kvDevice] = await seedDevices(hearth, 1);
    const sqlite = await kvAttack(
      {
        apiUrl: `http://127.0.0.1:${hearth.httpPort}`,
        brokerUrl: `http://127.0.0.1:${hearth.httpPort}`,
        mqttPort: hearth.mqttPort,
        // the admin key this node wrote at bootstrap (docs/operations.md)
        adminKey: readFileSync(join(dir, 'admin.key'), 'utf8').trim(),
        device: kvDevice,
        rss: () => process.memoryUsage().rss,
      },
      KV,
    );
    console.log(kvLine('sqlite', sqlite, mib));
    const cluster = process.env.BENCH_FLOOD_KV_CLUSTER === '0' ? undefined : await kvCluster();
    if (cluster) console.log(kvLine('cluster', cluster, mib));
    const kvOk = kvPass(sqlite) && (!cluster || kvPass(cluster));
    const kvSummary = (label: string, f: KvFigures) => `kv ${label}: RSS max ${mib(f.rssMax)}, healthz max ${f.healthMax.toFixed(0)} ms`;
    return {
      pass: pass && kvOk,
      summary:
        `${SESSIONS} sessions x ${FILTERS} filters: heap +${mib(heapGrowth)}, RSS +${mib(after.rss - before.rss)}, ${kept.subsCount} subscriptions kept, healthz ${unhealthy ? 'FAILED' : 'ok'}; ` +
        [kvSummary('sqlite', sqlite), cluster ? kvSummary('cluster', cluster) : 'kv cluster skipped'].join('; '),
    };
  } finally {
    await hearth.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
