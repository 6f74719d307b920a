// `npm run bench -- tsdb`: home time series (docs/timeseries.md).
//  1. Ingest: PUBLISHERS gateways in a home publish QoS 1 `timeSeriesData` events of POINTS points
//     each over MQTT (MQTT.js in this process, a window of unacknowledged publishes each); a PUBACK
//     comes once the event and its points are committed. Points per second to the last PUBACK.
//     Target: 50,000 points/s on SQLite.
//  2. Query: one series with a point a second for DAYS days (2.6 million points for 30), seeded
//     straight into the store in bulk; the latency of GET .../data?aggregation=avg over the whole
//     range (the service's resolution, served from the hour rollup) against a plain SQL aggregate
//     over the raw points in the same run (the same GROUP BY per hour on the raw table, through
//     the same store). Target: the query under 50 ms.
// Sizes: BENCH_TSDB_EVENTS (events per publisher, default 50), BENCH_TSDB_DAYS (default 30).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { pino } from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { loadHearth } from './baselines/hearth.js';
import type { TsdbPoint } from '../../src/ports/store.js';
import { seedDevices } from './baselines/brokers.js';
import type { BenchOptions, BenchResult } from './lib/types.js';

// Hearth as users run it: the built server (baselines/hearth.ts)
const { startHearth } = await loadHearth();

const INGEST_TARGET = 50_000;
const QUERY_TARGET_MS = 50;
const PUBLISHERS = 4;
const WINDOW = 8;
// about 40 KiB an event, under the 64 KiB event limit
const POINTS = 500;
const EVENTS = Number(process.env.BENCH_TSDB_EVENTS ?? 50);
const DAYS = Number(process.env.BENCH_TSDB_DAYS ?? 30);
const QUERY_RUNS = 15;
const T0 = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;

const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** publishes `events` events from one gateway, at most WINDOW unacknowledged */
async function publishAll(url: string, d: { id: number; key: string }, g: number, events: number): Promise<void> {
  const client = await mqtt.connectAsync(url, { username: String(d.id), password: d.key, reconnectPeriod: 0 });
  try {
    const topic = `/devices/${d.id}/event`;
    let next = 0;
    const one = async () => {
      while (next < events) {
        const e = next++;
        const timeSeriesData = Array.from({ length: POINTS }, (_, k) => ({
          seriesId: `0101:bench${g}-temperature:${k % 5}`,
          timestamp: T0 + (e * POINTS + k) * 1000,
          value: (k % 100) / 4,
        }));
        await client.publishAsync(topic, JSON.stringify({ eventType: 'timeSeriesData', eventData: { timeSeriesData } }), { qos: 1 });
      }
    };
    await Promise.all(Array.from({ length: WINDOW }, one));
  } finally {
    await client.endAsync();
  }
}

export async function run(_opts: BenchOptions): Promise<BenchResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-bench-tsdb-'));
  const config = loadConfig({
    HEARTH_DATA_DIR: dataDir,
    HEARTH_HOST: '127.0.0.1',
    HEARTH_HTTP_PORT: '0',
    HEARTH_MQTT_PORT: '0',
    HEARTH_LOG_LEVEL: 'warn',
    HEARTH_MQTT_RATE_LIMIT_PUBLISHES_PER_SECOND: '100000000',
    HEARTH_MQTT_RATE_LIMIT_BURST: '200000000',
    HEARTH_RATE_LIMIT_ENABLED: 'false',
  });
  const hearth = await startHearth(config, pino({ level: 'warn' }));
  const store = hearth.deps.store;
  try {
    const now = new Date().toISOString();
    await store.modules.create({
      projectId: 1,
      id: 'tsdb',
      moduleType: 'tsdb',
      description: null,
      tsdb: { eventTypes: ['timeSeriesData'] },
      eventWebhook: null,
      commandWebhook: null,
      eventDisabled: null,
      commandDisabled: null,
      creationTime: now,
      modificationTime: now,
    });
    const homeId = (await store.homes.create({ projectId: 1, name: 'bench', creationTime: now })).id;
    const gateways = await seedDevices(hearth, PUBLISHERS, { homeId });
    const url = `mqtt://127.0.0.1:${hearth.mqttPort}`;

    // 1. ingest: a warm-up, then the measured run
    console.log(`  ingest: ${PUBLISHERS} gateways x ${EVENTS} events x ${POINTS} points over MQTT QoS 1 (window ${WINDOW} each)`);
    await Promise.all(gateways.map((d, g) => publishAll(url, d, g + 100, 4)));
    const t0 = performance.now();
    await Promise.all(gateways.map((d, g) => publishAll(url, d, g, EVENTS)));
    const seconds = (performance.now() - t0) / 1000;
    const points = PUBLISHERS * EVENTS * POINTS;
    const stored = (
      await store.tsdb.buckets(
        { homeId, moduleId: 'tsdb', seriesId: '0101:bench0-temperature:0' },
        { source: '1day', begin: T0, end: T0 + 400 * DAY, width: 400 * DAY, offset: T0 },
      )
    )[0];
    if (stored?.count !== (EVENTS * POINTS) / 5) throw new Error(`ingest: expected ${(EVENTS * POINTS) / 5} points in a series, found ${stored?.count}`);
    const perSecond = points / seconds;
    console.log(`    ${fmt(points)} points in ${fmt(seconds, 2)} s: ${fmt(perSecond)} points/s (${fmt((PUBLISHERS * EVENTS) / seconds)} events/s)`);

    // 2. query: DAYS days of a point a second, seeded in bulk
    const key = { homeId, moduleId: 'tsdb', seriesId: 'query-1' };
    const total = DAYS * 86_400;
    console.log(`  query: seeding ${fmt(total)} points (a point a second for ${DAYS} days) straight into the store`);
    const s0 = performance.now();
    for (let c = 0; c < total; c += 50_000) {
      const batch: TsdbPoint[] = [];
      for (let i = c; i < Math.min(total, c + 50_000); i++) batch.push({ projectId: 1, ...key, ts: T0 + i * 1000, value: (i % 3600) / 36 });
      await store.transaction((tx) => tx.tsdb.ingest(batch));
    }
    console.log(`    seeded in ${fmt((performance.now() - s0) / 1000, 1)} s`);
    const begin = new Date(T0).toISOString();
    const end = new Date(T0 + DAYS * DAY).toISOString();
    const path = `/homes/${homeId}/smartModules/tsdb/timeSeries/${key.seriesId}/data?begin=${begin}&end=${end}&aggregation=avg`;
    const headers = { authorization: `ModeCloud ${hearth.adminKey}` };
    const api = `http://127.0.0.1:${hearth.httpPort}`;
    let answer: { resolution: string; data: [string, number][] } | undefined;
    const apiMs: number[] = [];
    for (let r = 0; r < QUERY_RUNS + 2; r++) {
      const q0 = performance.now();
      const res = await fetch(api + path, { headers });
      answer = (await res.json()) as typeof answer;
      if (res.status !== 200) throw new Error(`query: ${res.status} ${JSON.stringify(answer)}`);
      if (r >= 2) apiMs.push(performance.now() - q0);
    }
    const rawMs: number[] = [];
    let rawBuckets = 0;
    for (let r = 0; r < 3; r++) {
      const q0 = performance.now();
      rawBuckets = (await store.tsdb.buckets(key, { source: 'raw', begin: T0, end: T0 + DAYS * DAY, width: 3_600_000, offset: 0 })).length;
      rawMs.push(performance.now() - q0);
    }
    if (answer!.data.length !== rawBuckets) throw new Error(`query: ${answer!.data.length} buckets from the rollup, ${rawBuckets} from the raw points`);
    const q = median(apiMs);
    const raw = median(rawMs);
    console.log(
      `    GET .../data avg over ${DAYS} days (resolution ${answer!.resolution}, ${answer!.data.length} buckets): median ${fmt(q, 1)} ms of ${QUERY_RUNS}, through HTTP`,
    );
    console.log(`    plain SQL aggregate over the raw points (GROUP BY hour, ${fmt(total)} rows): median ${fmt(raw, 1)} ms of 3`);
    console.log(`    rollup / raw: ${(raw / q).toFixed(1)}x faster`);
    const ingestPass = perSecond >= INGEST_TARGET;
    const queryPass = q < QUERY_TARGET_MS;
    console.log(
      `  ingest ${fmt(perSecond)} points/s (target ${fmt(INGEST_TARGET)}: ${ingestPass ? 'PASS' : 'FAIL'}); query ${fmt(q, 1)} ms (target < ${QUERY_TARGET_MS}: ${queryPass ? 'PASS' : 'FAIL'})`,
    );
    return {
      pass: ingestPass && queryPass,
      summary: `${fmt(perSecond)} points/s ingested over MQTT; ${DAYS}-day avg ${fmt(q, 1)} ms vs ${fmt(raw, 1)} ms over the raw points (${(raw / q).toFixed(1)}x)`,
    };
  } finally {
    await hearth.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
