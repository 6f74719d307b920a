// `npm run bench -- commands`: command latency, `PUT /devices/{id}/command` until the device has
// it. Hearth runs in this process (broker + api roles, SQLite, as shipped: auth, validation,
// presence check, bus, Aedes or the command WebSocket). The app and the device are one child
// process, so both ends of each measurement read the same clock; commands go one at a time.
// Reference in the same run: a bare node:http endpoint that parses the body and hands it to bare
// Aedes (aedes.publish), i.e. the same path without anything of Hearth's. No floor: the figures
// are reported (p50 / p99 / mean).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { startHearth } from '../../src/main.js';
import { forkChild, seedDevices, startBareAedes } from './baselines/brokers.js';
import type { CommandJob } from './baselines/mqtt-load.js';
import type { BenchOptions, BenchResult } from './lib/types.js';

const COUNT = Number(process.env.BENCH_COMMANDS ?? 2000);
const WARMUP = 200;

interface Row {
  target: string;
  p50: number;
  p99: number;
  mean: number;
  count: number;
}

function summarize(target: string, latencies: number[]): Row {
  const s = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { target, p50: at(0.5), p99: at(0.99), mean: s.reduce((a, b) => a + b, 0) / s.length, count: s.length };
}

async function measure(job: Omit<CommandJob, 'type' | 'count' | 'warmup'>): Promise<number[]> {
  const child = await forkChild('./mqtt-load.ts');
  try {
    const r = await child.request<{ latencies: number[] }>({ type: 'commands', count: COUNT, warmup: WARMUP, ...job }, 'latencies', 300_000);
    return r.latencies;
  } finally {
    await child.close();
  }
}

async function hearthRows(): Promise<Row[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-bench-cmd-'));
  const config = loadConfig({
    HEARTH_DATA_DIR: dataDir,
    HEARTH_HOST: '127.0.0.1',
    HEARTH_HTTP_PORT: '0',
    HEARTH_MQTT_PORT: '0',
    HEARTH_ROLES: 'broker,api,worker',
    HEARTH_LOG_LEVEL: 'warn',
    // on, but far above one sequential client: the check still runs on every request
    HEARTH_RATE_LIMIT_PER_SECOND: '10000000',
    HEARTH_RATE_LIMIT_BURST: '20000000',
  });
  const hearth = await startHearth(config, pino({ level: 'warn' }));
  try {
    const [d] = await seedDevices(hearth, 1);
    const putUrl = `http://127.0.0.1:${hearth.httpPort}/devices/${d.id}/command`;
    const headers = { authorization: `ModeCloud ${hearth.adminKey}` };
    const mqttRow = summarize(
      'hearth, MQTT',
      await measure({
        putUrl,
        headers,
        device: { kind: 'mqtt', url: `mqtt://127.0.0.1:${hearth.mqttPort}`, username: String(d.id), password: d.key, topic: `/devices/${d.id}/command` },
      }),
    );
    const wsRow = summarize(
      'hearth, WebSocket',
      await measure({
        putUrl,
        headers,
        device: { kind: 'ws', url: `ws://127.0.0.1:${hearth.httpPort}/devices/${d.id}/command`, headers: { authorization: `ModeCloud ${d.key}` } },
      }),
    );
    return [mqttRow, wsRow];
  } finally {
    await hearth.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** the same path with nothing of Hearth's: node:http → JSON.parse → aedes.publish → subscriber */
async function baselineRow(): Promise<Row> {
  const aedes = await startBareAedes();
  const topic = '/devices/1/command';
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { action, parameters } = JSON.parse(Buffer.concat(chunks).toString());
      aedes.aedes.publish(
        { cmd: 'publish', topic, payload: Buffer.from(JSON.stringify({ action, parameters })), qos: 1, retain: false, dup: false },
        () => undefined,
      );
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  try {
    const putUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/devices/1/command`;
    return summarize('bare http → aedes', await measure({ putUrl, headers: {}, device: { kind: 'mqtt', url: `mqtt://127.0.0.1:${aedes.port}`, topic } }));
  } finally {
    server.closeAllConnections();
    server.close();
    await aedes.close();
  }
}

const ms = (n: number) => n.toFixed(2);

export async function run(_opts: BenchOptions): Promise<BenchResult> {
  console.log(`  ${COUNT} commands one at a time (after ${WARMUP} warm-up), PUT until the device has it`);
  const rows = [...(await hearthRows()), await baselineRow()];
  console.log(`  ${'target'.padEnd(20)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'mean ms'.padStart(8)} ${'commands'.padStart(9)}`);
  for (const r of rows)
    console.log(`  ${r.target.padEnd(20)} ${ms(r.p50).padStart(8)} ${ms(r.p99).padStart(8)} ${ms(r.mean).padStart(8)} ${String(r.count).padStart(9)}`);
  const [m, w, b] = rows;
  console.log(`  hearth MQTT p50 / bare ${(m.p50 / b.p50).toFixed(2)}x, p99 / bare ${(m.p99 / b.p99).toFixed(2)}x (no floor: reported)`);
  const pass = rows.every((r) => r.count === COUNT);
  return {
    pass,
    summary: `MQTT p50 ${ms(m.p50)} ms p99 ${ms(m.p99)} ms; WebSocket p50 ${ms(w.p50)} ms p99 ${ms(w.p99)} ms; bare http→aedes p50 ${ms(b.p50)} ms`,
  };
}
