// `npm run bench -- commands`: command latency, `PUT /devices/{id}/command` until the device has
// it. Hearth runs in this process (broker + api roles, SQLite, as shipped: auth, validation,
// presence check, bus, Aedes or the command WebSocket). The app and the device are one child
// process, so both ends of each measurement read the same clock; commands go one at a time.
// Reference in the same run: a bare node:http endpoint that parses the body and hands it to bare
// Aedes (aedes.publish), i.e. the same path without anything of Hearth's. No floor: the figures
// are reported (p50 / p99 / mean).
// The command outbox (docs/concepts.md#command-outbox) beside them: a command queued while the
// device is offline (POST /devices/{id}/commands), then the device connects; measured from the
// start of its connection (CONNECT, or the WebSocket upgrade) until it has the command, in this
// process (both ends on one clock), one at a time. Its own reference is the same connection and
// subscription with no command waiting (until the SUBACK, or the open WebSocket).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import mqtt from 'mqtt';
import { WebSocket } from 'ws';
import { loadConfig } from '../../src/config/load.js';
import { loadHearth } from './baselines/hearth.js';
import { forkChild, seedDevices, startBareAedes } from './baselines/brokers.js';
import type { CommandJob } from './baselines/mqtt-load.js';
import type { BenchOptions, BenchResult } from './lib/types.js';

// Hearth as users run it: the built server (baselines/hearth.ts)
const { startHearth } = await loadHearth();

const COUNT = Number(process.env.BENCH_COMMANDS ?? 2000);
const WARMUP = 200;
const OUTBOX_COUNT = Number(process.env.BENCH_OUTBOX ?? 200);

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
    const outbox = await outboxRows(`http://127.0.0.1:${hearth.httpPort}`, hearth.mqttPort, headers, d);
    return [mqttRow, wsRow, ...outbox];
  } finally {
    await hearth.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** one device connection: resolves with the first command it gets (or at once, `empty`: when it is ready) */
async function connectOnce(kind: 'mqtt' | 'ws', url: string, d: { id: number; key: string }, empty: boolean): Promise<void> {
  if (kind === 'mqtt') {
    const client = mqtt.connect(url, { username: String(d.id), password: d.key, reconnectPeriod: 0, clean: true });
    try {
      await new Promise<void>((resolve, reject) => {
        client.once('error', reject);
        client.once('message', () => resolve());
        client.once('connect', () => client.subscribe(`/devices/${d.id}/command`, { qos: 1 }, (err) => (err ? reject(err) : empty ? resolve() : undefined)));
      });
    } finally {
      await client.endAsync(true);
    }
    return;
  }
  const ws = new WebSocket(url, { headers: { authorization: `ModeCloud ${d.key}` } });
  try {
    await new Promise<void>((resolve, reject) => {
      ws.once('error', reject);
      ws.once('message', () => resolve());
      if (empty) ws.once('open', () => resolve());
    });
  } finally {
    ws.terminate();
  }
}

/** the outbox path: queued while offline, then connect → delivery; and the bare connect for reference */
async function outboxRows(baseUrl: string, mqttPort: number, headers: Record<string, string>, d: { id: number; key: string }): Promise<Row[]> {
  const rows: Row[] = [];
  const targets: ['mqtt' | 'ws', string, string][] = [
    ['mqtt', `mqtt://127.0.0.1:${mqttPort}`, 'MQTT'],
    ['ws', `${baseUrl.replace('http', 'ws')}/devices/${d.id}/command`, 'WebSocket'],
  ];
  for (const [kind, url, name] of targets) {
    const connectOnly: number[] = [];
    const delivered: number[] = [];
    for (let i = 0; i < OUTBOX_COUNT + 20; i++) {
      let t0 = performance.now();
      await connectOnce(kind, url, d, true);
      if (i >= 20) connectOnly.push(performance.now() - t0);
      const r = await fetch(`${baseUrl}/devices/${d.id}/commands`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ action: 'bench', parameters: { i } }),
      });
      if (r.status !== 201) throw new Error(`outbox command refused: ${r.status} ${await r.text()}`);
      t0 = performance.now();
      await connectOnce(kind, url, d, false);
      if (i >= 20) delivered.push(performance.now() - t0);
    }
    rows.push(summarize(`outbox, ${name}`, delivered), summarize(`connect only, ${name}`, connectOnly));
  }
  return rows;
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
  console.log(`  outbox: ${OUTBOX_COUNT} commands queued while offline, from the device's connect until it has the command`);
  const rows = [...(await hearthRows()), await baselineRow()];
  console.log(`  ${'target'.padEnd(24)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'mean ms'.padStart(8)} ${'commands'.padStart(9)}`);
  for (const r of rows)
    console.log(`  ${r.target.padEnd(24)} ${ms(r.p50).padStart(8)} ${ms(r.p99).padStart(8)} ${ms(r.mean).padStart(8)} ${String(r.count).padStart(9)}`);
  const [m, w, om, , ow, , b] = rows;
  console.log(`  hearth MQTT p50 / bare ${(m.p50 / b.p50).toFixed(2)}x, p99 / bare ${(m.p99 / b.p99).toFixed(2)}x (no floor: reported)`);
  const pass = rows.every((r) => r.count === (r.target.startsWith('outbox') || r.target.startsWith('connect') ? OUTBOX_COUNT : COUNT));
  return {
    pass,
    summary:
      `MQTT p50 ${ms(m.p50)} ms p99 ${ms(m.p99)} ms; WebSocket p50 ${ms(w.p50)} ms p99 ${ms(w.p99)} ms; bare http→aedes p50 ${ms(b.p50)} ms; ` +
      `outbox connect→delivery MQTT p50 ${ms(om.p50)} ms p99 ${ms(om.p99)} ms, WebSocket p50 ${ms(ow.p50)} ms p99 ${ms(ow.p99)} ms`,
  };
}
