// `npm run bench -- flood`: issue 13 F3. One device key, many persistent sessions with fresh
// client ids, each subscribing to thousands of its own bulkData response filters, then gone.
// Before the bounds of docs/devices.md#mqtt the heap went from 27 MiB to 3.6 GB in 36 sessions and the
// process died. Prints heap and RSS before and after (after garbage collection when run with
// --expose-gc: `node --expose-gc --import tsx scripts/bench/index.ts flood`), the sessions and
// filters the broker kept, and whether /healthz answered throughout.
// Floor: heap growth under 64 MiB and the persistence holding at most the configured bounds.
// BENCH_FLOOD_SESSIONS (default 40), BENCH_FLOOD_FILTERS (default 5000).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { startHearth } from '../../src/main.js';
import { seedDevices } from './baselines/brokers.js';
import { flood, mib, settledMemory } from './lib/flood.js';
import type { BenchResult } from './lib/types.js';

const SESSIONS = Number(process.env.BENCH_FLOOD_SESSIONS ?? 40);
const FILTERS = Number(process.env.BENCH_FLOOD_FILTERS ?? 5000);
const HEAP_FLOOR = 64 * 1024 * 1024;

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
    return {
      pass,
      summary: `${SESSIONS} sessions x ${FILTERS} filters: heap +${mib(heapGrowth)}, RSS +${mib(after.rss - before.rss)}, ${kept.subsCount} subscriptions kept, healthz ${unhealthy ? 'FAILED' : 'ok'}`,
    };
  } finally {
    await hearth.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
