// A Hearth cluster of real processes for benches: nodes are `node dist/src/main.js` children (the
// built server as `npm start` runs it, baselines/hearth.ts; built first when dist/ is out of date) on free loopback ports, one
// data directory each, sharing one PostgreSQL schema, one Redis key prefix and one secret, all
// made fresh for the run. close() stops every node and removes the schema, the keys and the
// directories; it is idempotent, so a SIGINT handler and a `finally` can both call it.
//
// Each node's PostgreSQL connections carry application_name `<pgAppPrefix><node>`, so the bench
// can find the server backends that work for the cluster (pg_stat_activity) and read their CPU.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { withMigrationLock } from '../../../src/adapters/sql/connect.js';
import { closeRedis, connectRedis, deleteKeysByPrefix } from '../../../src/adapters/redis/client.js';
import { accepting, freePort } from '../baselines/brokers.js';
import { commOf } from './proc-cpu.js';
import { ensureBuilt, hearthNodeArgs } from '../baselines/hearth.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const SCHEMA = /^hearth_bench_[0-9a-f]+$/;
/** how long a node may take until /healthz answers (and its MQTT port accepts) */
const START_MS = 300_000;

export interface ClusterNode {
  name: string;
  roles: string;
  pid: number;
  httpPort: number;
  /** 0 without the broker role */
  mqttPort: number;
  dataDir: string;
  /** what the node printed (warn level and above) */
  output(): string;
  stop(): Promise<void>;
}

export interface Cluster {
  databaseUrl: string;
  redisUrl: string;
  schema: string;
  redisPrefix: string;
  secret: string;
  /** application_name prefix of every node's PostgreSQL connections */
  pgAppPrefix: string;
  /** the database URL with an application_name that does not match pgAppPrefix (bench's own clients) */
  benchDatabaseUrl: string;
  start(name: string, roles: string): Promise<ClusterNode>;
  nodes(): ClusterNode[];
  close(): Promise<void>;
}

function withAppName(url: string, name: string): string {
  const u = new URL(url);
  u.searchParams.set('application_name', name);
  return u.toString();
}

/** fails fast (one line) when PostgreSQL or Redis cannot be reached */
export async function reachable(databaseUrl: string, redisUrl: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.end();
  } catch (e) {
    return `PostgreSQL at ${databaseUrl}: ${(e as Error).message}`;
  }
  try {
    const r = await connectRedis({ url: redisUrl });
    await closeRedis(r);
  } catch (e) {
    return `Redis at ${redisUrl}: ${(e as Error).message}`;
  }
  return undefined;
}

/**
 * @param env settings every node gets on top of the cluster's own (rate limits and the like)
 */
export function createCluster(o: { databaseUrl: string; redisUrl: string; env?: Record<string, string> }): Cluster {
  const id = randomBytes(6).toString('hex');
  const schema = `hearth_bench_${id}`;
  const redisPrefix = `hearth-bench:${id}:`;
  const secret = randomBytes(32).toString('base64url');
  const pgAppPrefix = `hbench_${id}_`;
  const dir = mkdtempSync(join(tmpdir(), 'hearth-bench-cluster-'));
  const running: ClusterNode[] = [];
  let closing: Promise<void> | undefined;

  // the node's environment is built from scratch for Hearth's part: a HEARTH_* variable of the
  // shell must not change what is measured
  const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('HEARTH_')));

  // freePort() closes the port it found before the node binds it: on a busy machine (a test run
  // beside it) another process can take it meanwhile, and the node exits ("port ... is already in use"). Such a
  // start is tried again on new ports.
  async function start(name: string, roles: string): Promise<ClusterNode> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await startOnce(name, roles);
      } catch (e) {
        if (attempt >= 3 || !/EADDRINUSE|is already in use/.test((e as Error).message)) throw e;
      }
    }
  }

  async function startOnce(name: string, roles: string): Promise<ClusterNode> {
    if (closing) throw new Error('the cluster is closing');
    const httpPort = await freePort();
    const mqttPort = roles.includes('broker') ? await freePort() : 0;
    const dataDir = join(dir, name);
    mkdirSync(dataDir, { recursive: true });
    // BENCH_PROFILE=<dir> (as for the in-process benches, lib/profile.ts): each node writes its
    // CPU profiles into <dir>/cluster-<name>-<time>/ when it stops, one a thread (node's own names:
    // one --cpu-prof-name for all had tsx's loader thread overwrite the main thread's profile)
    const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${resolve(process.env.BENCH_PROFILE, `cluster-${name}-${Date.now()}`)}`] : [];
    await ensureBuilt();
    const child: ChildProcess = spawn(process.execPath, [...profile, ...hearthNodeArgs()], {
      cwd: ROOT,
      env: {
        ...baseEnv,
        HEARTH_HOST: '127.0.0.1',
        HEARTH_HTTP_PORT: String(httpPort),
        HEARTH_MQTT_PORT: String(mqttPort || (await freePort())),
        HEARTH_DATA_DIR: dataDir,
        HEARTH_ROLES: roles,
        HEARTH_DATABASE_URL: withAppName(o.databaseUrl, pgAppPrefix + name),
        HEARTH_DATABASE_SCHEMA: schema,
        HEARTH_REDIS_URL: o.redisUrl,
        HEARTH_REDIS_PREFIX: redisPrefix,
        HEARTH_SECRET: secret,
        HEARTH_LOG_LEVEL: 'warn',
        ...o.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const stop = async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      // a profiled node writes its profile as it exits: give it time (a broker closing thousands of connections)
      const t = setTimeout(() => child.kill('SIGKILL'), profile.length ? 120_000 : 10_000);
      await exited;
      clearTimeout(t);
    };
    const node: ClusterNode = { name, roles, pid: child.pid!, httpPort, mqttPort, dataDir, output: () => out, stop };
    running.push(node);
    child.once('exit', () => {
      const i = running.indexOf(node);
      if (i >= 0) running.splice(i, 1);
    });
    // ready: /healthz answers (every node with the api or broker role serves HTTP) and, on a
    // broker, the MQTT port accepts (it opens after the HTTP port)
    // a node took over a minute to start at a load average of 28 (then through tsx)
    const end = Date.now() + START_MS;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`cluster node ${name} exited with ${child.exitCode}: ${out}`);
      const ok = await fetch(`http://127.0.0.1:${httpPort}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok && (!mqttPort || (await accepting(mqttPort)))) return node;
      if (Date.now() > end) throw new Error(`cluster node ${name} did not start within ${START_MS / 1000} s: ${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async function cleanUp(): Promise<void> {
    const errors: string[] = [];
    await Promise.all([...running].map((n) => n.stop().catch((e: Error) => errors.push(`${n.name}: ${e.message}`))));
    if (!SCHEMA.test(schema)) throw new Error(`refusing to drop schema ${schema}`);
    // under the migration lock: a drop during another store's migration breaks its introspection
    await withMigrationLock(withAppName(o.databaseUrl, `hbench_${id}-cleanup`), async () => {
      const client = new pg.Client({ connectionString: o.databaseUrl });
      client.on('error', () => {});
      await client.connect();
      try {
        await client.query(`drop schema if exists "${schema}" cascade`);
      } finally {
        await client.end();
      }
    }).catch((e: Error) => errors.push(`drop schema ${schema}: ${e.message}`));
    try {
      const redis = await connectRedis({ url: o.redisUrl });
      try {
        await deleteKeysByPrefix(redis, redisPrefix);
      } finally {
        await closeRedis(redis);
      }
    } catch (e) {
      errors.push(`delete Redis keys ${redisPrefix}*: ${(e as Error).message}`);
    }
    rmSync(dir, { recursive: true, force: true });
    if (errors.length) throw new Error(`cluster clean-up: ${errors.join('; ')}`);
  }

  return {
    databaseUrl: o.databaseUrl,
    redisUrl: o.redisUrl,
    schema,
    redisPrefix,
    secret,
    pgAppPrefix,
    benchDatabaseUrl: withAppName(o.databaseUrl, `hbench_${id}-bench`),
    start,
    nodes: () => [...running],
    close: () => (closing ??= cleanUp()),
  };
}

/** the admin key the first node wrote when it created the project */
export function adminKeyOf(node: ClusterNode): string {
  return readFileSync(join(node.dataDir, 'admin.key'), 'utf8').trim();
}

/** the backends of this cluster's nodes and the server's own processes (WAL writer...), as pids of this machine */
export async function postgresPids(monitor: pg.Client, cluster: Pick<Cluster, 'pgAppPrefix'>): Promise<number[]> {
  const r = await monitor.query<{ pid: number }>(
    `select pid from pg_stat_activity where left(application_name, length($1)) = $1 or backend_type <> 'client backend'`,
    [cluster.pgAppPrefix],
  );
  // a server elsewhere (or in another pid namespace) has pids that are not its processes here
  return r.rows.map((x) => x.pid).filter((pid) => commOf(pid) === 'postgres');
}

/** the Redis server's pid when it runs on this machine */
export async function redisPid(url: string): Promise<number | undefined> {
  const client = await connectRedis({ url });
  try {
    const pid = Number(/process_id:(\d+)/.exec(await client.info('server'))?.[1]);
    return pid && commOf(pid)?.startsWith('redis-server') ? pid : undefined;
  } finally {
    await closeRedis(client);
  }
}
