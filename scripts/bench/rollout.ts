// `npm run bench -- rollout` (issue #28): a firmware rollout to the whole fleet of the fleet bench,
// on one embedded node (Hearth alone in a child process, SQLite, every role, as shipped: the
// worker advances rollouts every rollouts.tickMs). BENCH_ROLLOUT_DEVICES (15,000) devices are
// seeded and connected by the fleet bench's generators (BENCH_FLEET_GENERATORS,
// BENCH_FLEET_INFLIGHT); the devices receive their commands and do not act on them. Measured:
// - the rollout: from POST /projects/1/rollouts (one wave, no pacing, every device of the class)
//   until every device is `notified` (the server wrote the command to it) and until the devices
//   counted a command each; the server process's CPU time over that span, per device;
// - the baseline: the same number of commands sent one by one through the API, direct
//   (PUT /devices/{id}/command) and through the outbox (POST /devices/{id}/commands),
//   BENCH_CONNECTIONS (50) requests in flight, until the devices counted them; CPU per command.
// Ratios rollout / baseline are printed, not asserted (a shared machine is noisy); the verdict is
// that every device was notified and got its command, with no connection refused.
import { loadavg } from 'node:os';
import { cpuMicrosOf, forkChild } from './baselines/brokers.js';
import type { FleetClient } from './baselines/fleet-load.js';
import { apiConnected, fmt, keyOf, refusedOf, secs, settings, startGenerators, until } from './lib/fleet.js';
import type { BenchOptions, BenchResult } from './lib/types.js';

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

function devicesOf(): number {
  const raw = process.env.BENCH_ROLLOUT_DEVICES;
  const n = raw === undefined || raw === '' ? 15_000 : Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`BENCH_ROLLOUT_DEVICES must be a positive integer, got ${raw}`);
  return n;
}

interface Figures {
  label: string;
  /** until the server counted every device notified (the rollout) or answered every request */
  serverMs: number;
  /** until the devices counted every command */
  devicesMs: number;
  cpuMicros: number;
  errors: number;
}

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const s = settings();
  const n = devicesOf();
  const load0 = load();
  console.log(
    `  ${fmt(n)} devices, ${s.generators} generators x ${s.inflight} in flight; baseline ${opts.connections} requests in flight; load average ${load0}`,
  );
  const server = await forkChild('./server.ts', [], ['--max-old-space-size=4096']);
  const gens = await startGenerators(s.generators, s.inflight);
  try {
    const { port, httpPort, adminKey } = await server.request<{ port: number; httpPort: number; adminKey: string }>(
      {
        type: 'start',
        mode: 'hearth',
        keys: Array.from({ length: n }, (_, i) => keyOf(i)),
        env: {
          HEARTH_LIMITS_UNAUTHENTICATED_SOCKETS_PER_ADDRESS: String(Math.max(100, s.inflight * 4)),
          HEARTH_LIMITS_CONNECT_RATE_PER_SECOND: '0',
          // the baseline's thousands of requests from one key are what is measured, not the limiter
          HEARTH_RATE_LIMIT_ENABLED: 'false',
        },
      },
      'started',
      600_000,
    );
    const api = `http://127.0.0.1:${httpPort}`;
    const headers = { authorization: `ModeCloud ${adminKey}`, 'content-type': 'application/json' };
    const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
      const r = await fetch(api + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await r.text();
      return { status: r.status, body: text ? JSON.parse(text) : undefined };
    };

    // a fresh store numbers its devices 1..N in seeding order
    const clients: FleetClient[] = Array.from({ length: n }, (_, i) => ({
      username: String(i + 1),
      password: keyOf(i),
      clientId: `fleet-${i}`,
      deviceId: i + 1,
      port: 0,
    }));
    const c = await gens.connect([port], clients, true);
    await until(async () => (await apiConnected(httpPort, adminKey)) === n, 'API count');
    console.log(`  fleet connected in ${secs(c.ms)} s, refused ${refusedOf(c.failures)}`);

    const bundle = await call('POST', '/bundles', {
      id: 'bench-fw',
      projectId: 1,
      deviceClass: 'default',
      components: [{ componentName: 'main', componentVersionName: '2.0.0' }],
    });
    if (bundle.status !== 201) throw new Error(`bundle: ${bundle.status} ${JSON.stringify(bundle.body)}`);
    const up = await fetch(`${api}/bundles/bench-fw/components/main/file`, {
      method: 'PUT',
      headers: { authorization: headers.authorization, 'content-type': 'application/octet-stream' },
      body: Buffer.alloc(256 * 1024, 1),
    });
    if (up.status !== 201) throw new Error(`file: ${up.status} ${await up.text()}`);

    const pid = server.proc.pid!;
    const received = async () => (await gens.status()).commands;

    // the rollout
    let base = await received();
    let cpu0 = cpuMicrosOf(pid);
    let t0 = performance.now();
    const created = await call('POST', '/projects/1/rollouts', { bundleId: 'bench-fw', name: 'bench', failureThreshold: 100 });
    if (created.status !== 201) throw new Error(`rollout: ${created.status} ${JSON.stringify(created.body)}`);
    if (created.body.counts.targeted !== n) throw new Error(`the rollout targets ${created.body.counts.targeted} devices, not ${n}`);
    const createMs = performance.now() - t0;
    // progress on a slow machine: where the rollout is, every 15 s
    const progress = setInterval(() => {
      void Promise.all([call('GET', `/projects/1/rollouts/${created.body.id}`), received()])
        .then(([r, got]) =>
          console.log(`  ... ${secs(performance.now() - t0)} s: ${fmt(r.body.counts.notified)} notified, ${fmt(got - base)} commands received`),
        )
        .catch(() => undefined);
    }, 15_000);
    let notifiedMs: number, gotMs: number;
    try {
      [notifiedMs, gotMs] = await Promise.all([
        until(async () => (await call('GET', `/projects/1/rollouts/${created.body.id}`)).body.counts.notified === n, 'every device notified', t0),
        until(async () => (await received()) - base >= n, 'every device got its command', t0),
      ]);
    } finally {
      clearInterval(progress);
    }
    const rollout: Figures = { label: 'rollout', serverMs: notifiedMs, devicesMs: gotMs, cpuMicros: cpuMicrosOf(pid) - cpu0, errors: 0 };
    const final = (await call('GET', `/projects/1/rollouts/${created.body.id}`)).body.counts;
    console.log(`  rollout created (${fmt(n)} device rows) in ${secs(createMs)} s; counts at the end ${JSON.stringify(final)}`);

    // the baselines: the same number of commands, one request each
    const oneByOne = async (label: string, method: string, path: (id: number) => string, body: unknown, expect: number): Promise<Figures> => {
      base = await received();
      cpu0 = cpuMicrosOf(pid);
      t0 = performance.now();
      let next = 1;
      let errors = 0;
      await Promise.all(
        Array.from({ length: opts.connections }, async () => {
          while (next <= n) {
            const id = next++;
            try {
              const r = await fetch(api + path(id), { method, headers, body: JSON.stringify(body) });
              await r.arrayBuffer();
              if (r.status !== expect) errors++;
            } catch {
              // a connection closed under load: counted, the device is not waited for
              errors++;
            }
          }
        }),
      );
      const serverMs = performance.now() - t0;
      const devicesMs = await until(async () => (await received()) - base >= n - errors, `${label}: every device got its command`, t0);
      return { label, serverMs, devicesMs, cpuMicros: cpuMicrosOf(pid) - cpu0, errors };
    };
    const direct = await oneByOne('direct commands', 'PUT', (id) => `/devices/${id}/command`, { action: 'bench', parameters: { v: 2 } }, 204);
    const outbox = await oneByOne('outbox commands', 'POST', (id) => `/devices/${id}/commands`, { action: 'bench', parameters: { v: 2 } }, 201);

    console.log(
      `  ${'what'.padEnd(16)} ${'devices'.padStart(7)} ${'server s'.padStart(8)} ${'devices s'.padStart(9)} ${'per s'.padStart(7)} ${'CPU s'.padStart(6)} ${'CPU µs/device'.padStart(13)} ${'errors'.padStart(6)}`,
    );
    for (const f of [rollout, direct, outbox])
      console.log(
        `  ${f.label.padEnd(16)} ${fmt(n).padStart(7)} ${secs(f.serverMs).padStart(8)} ${secs(f.devicesMs).padStart(9)} ${fmt(n / (f.devicesMs / 1000)).padStart(7)} ${fmt(f.cpuMicros / 1e6, 1).padStart(6)} ${fmt(f.cpuMicros / n).padStart(13)} ${String(f.errors).padStart(6)}`,
      );
    console.log('  (server s: the rollout until the API counts every device notified; a baseline until its last request is answered)');
    // another process's CPU is read in 10 ms ticks (cpuMicrosOf): a baseline that took less
    // reads 0, and a ratio to it says nothing (a tiny run printed "Infinityx")
    const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}x` : 'n/a (under one 10 ms CPU tick)');
    const ratios = `rollout / direct: time ${ratio(rollout.devicesMs, direct.devicesMs)}, CPU per device ${ratio(rollout.cpuMicros, direct.cpuMicros)}; rollout / outbox: time ${ratio(rollout.devicesMs, outbox.devicesMs)}, CPU per device ${ratio(rollout.cpuMicros, outbox.cpuMicros)}`;
    console.log(`  ${ratios}`);
    console.log(`  load average at the end ${load()} (start ${load0}); informational: the ratios are not asserted`);
    const { failures } = await gens.status();
    const pass = final.notified === n && direct.errors === 0 && outbox.errors === 0 && refusedOf(failures) === 0;
    return {
      pass,
      summary: `${fmt(n)} devices notified in ${secs(rollout.devicesMs)} s, ${fmt(rollout.cpuMicros / n)} µs CPU per device; ${ratios}`,
    };
  } finally {
    await gens.close();
    await server.close();
  }
}
