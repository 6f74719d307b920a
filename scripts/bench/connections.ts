// `npm run bench -- connections`: 10,000 connected devices. Each broker runs alone in a child
// process; a load child opens the connections (raw MQTT 3.1.1: CONNECT with the device's
// credentials, keep-alive 60, SUBSCRIBE to its command topic, then idle). Resident memory of the
// broker's process is read before and after (after garbage collection, for the Node brokers),
// and divided by the number of connections. Baselines in the same run: bare Aedes (in-memory
// persistence) with the same connections and subscriptions, and Mosquitto when installed.
// Floor: Hearth ≤ 1.5x bare Aedes per connection.
import { createHash } from 'node:crypto';
import { cpuMicrosOf, forkChild, rssOf, startMosquitto } from './baselines/brokers.js';
import type { ConnectJob } from './baselines/mqtt-load.js';
import type { BenchOptions, BenchResult } from './lib/types.js';

const FLOOR = 1.5;
const N = Number(process.env.BENCH_CONNECTIONS_DEVICES ?? 10_000);
const CONCURRENCY = 250;

interface Figures {
  target: string;
  connections: number;
  seconds: number;
  rssBefore: number;
  rssAfter: number;
  perConnection: number;
  heapPerConnection?: number;
  /** the broker's CPU (user + system, all threads) during the connects, per connection, µs */
  cpuPerConnect: number;
}

/** keys both sides can compute: the server seeds their hashes, the clients present them */
const keyOf = (i: number) => 'dk.' + createHash('sha256').update(`hearth-bench-connections-${i}`).digest('base64url');

async function nodeBroker(mode: 'hearth' | 'aedes'): Promise<Figures> {
  // BENCH_PROFILE=<dir> (lib/profile.ts): the broker process writes one profile per thread into <dir>/connections-<mode>/ when it exits
  const dir = process.env.BENCH_PROFILE;
  const prof = dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}/connections-${mode}`] : [];
  const server = await forkChild('./server.ts', [], ['--expose-gc', '--max-old-space-size=4096', ...prof]);
  const load = await forkChild('./mqtt-load.ts');
  try {
    const keys = mode === 'hearth' ? Array.from({ length: N }, (_, i) => keyOf(i)) : undefined;
    // every CONNECT comes from 127.0.0.1, CONCURRENCY at a time: above the per-address cap of sockets
    // not signed in yet (docs/operations.md#connection-limits, 100), which would reset the excess
    const env = { HEARTH_LIMITS_UNAUTHENTICATED_SOCKETS_PER_ADDRESS: String(CONCURRENCY * 4) };
    const { port } = await server.request<{ port: number }>({ type: 'start', mode, keys, env }, 'started', 120_000);
    // Hearth numbers its devices 1..N in a fresh store (the seed runs in order)
    const clients: ConnectJob['clients'] = Array.from({ length: N }, (_, i) =>
      mode === 'hearth'
        ? { username: String(i + 1), password: keys![i], clientId: `c${i}`, topic: `/devices/${i + 1}/command` }
        : { clientId: `c${i}`, topic: `/devices/${i + 1}/command` },
    );
    const before = await server.request<{ rss: number; heapUsed: number }>({ type: 'measure' }, 'memory');
    const cpu0 = cpuMicrosOf(server.proc.pid!);
    const connected = await load.request<{ count: number; ms: number }>(
      { type: 'connect', port, clients, concurrency: CONCURRENCY, keepalive: 60 },
      'connected',
      600_000,
    );
    const cpu = cpuMicrosOf(server.proc.pid!) - cpu0;
    const after = await server.request<{ rss: number; heapUsed: number; connections?: number }>({ type: 'measure' }, 'memory');
    if (mode === 'hearth' && after.connections !== N) console.log(`  note: hearth reports ${after.connections} live device connections`);
    return {
      target: mode === 'hearth' ? 'hearth' : 'bare aedes',
      connections: connected.count,
      seconds: connected.ms / 1000,
      rssBefore: before.rss,
      rssAfter: after.rss,
      perConnection: (after.rss - before.rss) / connected.count,
      heapPerConnection: (after.heapUsed - before.heapUsed) / connected.count,
      cpuPerConnect: cpu / connected.count,
    };
  } finally {
    await load.close();
    await server.close();
  }
}

async function mosquitto(): Promise<Figures | undefined> {
  const m = await startMosquitto();
  if (!m) return undefined;
  const load = await forkChild('./mqtt-load.ts');
  try {
    const clients: ConnectJob['clients'] = Array.from({ length: N }, (_, i) => ({ clientId: `c${i}`, topic: `/devices/${i + 1}/command` }));
    const before = rssOf(m.pid);
    const cpu0 = cpuMicrosOf(m.pid);
    const connected = await load.request<{ count: number; ms: number }>(
      { type: 'connect', port: m.port, clients, concurrency: CONCURRENCY, keepalive: 60 },
      'connected',
      600_000,
    );
    const cpu = cpuMicrosOf(m.pid) - cpu0;
    await new Promise((r) => setTimeout(r, 500));
    const after = rssOf(m.pid);
    return {
      target: 'mosquitto',
      connections: connected.count,
      seconds: connected.ms / 1000,
      rssBefore: before,
      rssAfter: after,
      perConnection: (after - before) / connected.count,
      cpuPerConnect: cpu / connected.count,
    };
  } finally {
    await load.close();
    await m.close();
  }
}

const kib = (b: number) => (b / 1024).toLocaleString('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 });
const mib = (b: number) => (b / 1024 / 1024).toLocaleString('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 });

export async function run(_opts: BenchOptions): Promise<BenchResult> {
  console.log(`  ${N.toLocaleString('en-US')} devices, ${CONCURRENCY} CONNECTs in flight, keep-alive 60 s, one QoS 1 subscription each`);
  const rows: Figures[] = [];
  rows.push(await nodeBroker('hearth'));
  rows.push(await nodeBroker('aedes'));
  const m = await mosquitto();
  if (m) rows.push(m);
  else console.log('  mosquitto not installed: that baseline is skipped');

  console.log(
    `  ${'target'.padEnd(12)} ${'connected'.padStart(9)} ${'seconds'.padStart(8)} ${'RSS before'.padStart(11)} ${'RSS after'.padStart(10)} ${'KiB/conn'.padStart(9)} ${'heap KiB/conn'.padStart(14)} ${'CPU µs/conn'.padStart(11)}`,
  );
  for (const r of rows) {
    console.log(
      `  ${r.target.padEnd(12)} ${r.connections.toLocaleString('en-US').padStart(9)} ${r.seconds.toFixed(1).padStart(8)} ${(mib(r.rssBefore) + ' MiB').padStart(11)} ${(mib(r.rssAfter) + ' MiB').padStart(10)} ${kib(r.perConnection).padStart(9)} ${(r.heapPerConnection === undefined ? '' : kib(r.heapPerConnection)).padStart(14)} ${r.cpuPerConnect.toFixed(0).padStart(11)}`,
    );
  }
  const [h, a] = rows;
  const ratio = h.perConnection / a.perConnection;
  const all = rows.every((r) => r.connections === N);
  const pass = all && ratio <= FLOOR;
  console.log(`  hearth / bare aedes  ${ratio.toFixed(2)}x memory per connection  (floor ≤ ${FLOOR}x: ${pass ? 'PASS' : 'FAIL'})`);
  // resident memory moves with how much heap V8 keeps committed; the live heap after GC does not
  if (h.heapPerConnection && a.heapPerConnection)
    console.log(`  hearth / bare aedes  ${(h.heapPerConnection / a.heapPerConnection).toFixed(2)}x live heap per connection (steadier than RSS)`);
  if (m) console.log(`  hearth / mosquitto   ${(h.perConnection / m.perConnection).toFixed(2)}x memory per connection`);
  // issue 25's targets, printed (not part of the verdict): a connect storm at least 0.8x bare Aedes's rate, memory at most 1.0x
  const rate = (r: Figures) => r.connections / r.seconds;
  console.log(
    `  connects/s: hearth ${rate(h).toFixed(0)}, bare aedes ${rate(a).toFixed(0)}${m ? `, mosquitto ${rate(m).toFixed(0)}` : ''}; hearth / bare aedes ${(rate(h) / rate(a)).toFixed(2)}x (target ≥ 0.8x), memory ${ratio.toFixed(2)}x (target ≤ 1.0x)`,
  );
  // the broker's CPU per connect: steadier than the rate on a machine shared with other work
  console.log(
    `  hearth / bare aedes CPU µs per connect ${(h.cpuPerConnect / a.cpuPerConnect).toFixed(2)}x (lower is better); per connect: hearth ${h.cpuPerConnect.toFixed(0)} µs CPU, bare aedes ${a.cpuPerConnect.toFixed(0)} µs CPU${m ? `, mosquitto ${m.cpuPerConnect.toFixed(0)} µs CPU` : ''}`,
  );
  if (!all) console.log('  FAIL: not every connection was established');
  return {
    pass,
    summary: `hearth ${kib(h.perConnection)} KiB per connection; ${ratio.toFixed(2)}x of bare aedes (${kib(a.perConnection)} KiB)${m ? `, mosquitto ${kib(m.perConnection)} KiB` : ''}`,
  };
}
