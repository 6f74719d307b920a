// The KV reload amplification of issue 23 (docs/devices.md#limits), as an attacker holding one device key
// would run it against a broker, for `npm run bench -- flood`:
//   fill   the device's store with 64 KiB values until the service refuses one (the store bound);
//   stall  `stalled` raw MQTT connections subscribe to the kv topic, stop reading, and publish
//          `reloads` `{"action":"reload"}` each (the device's publish rate limit drops some); they
//          stay for `seconds`, then go;
//   poll   then one reading connection asks for a reload `perSecond` times a second for `seconds`
//          (the two shapes of the issue one after the other: 8 connections is the default
//          per-device bound, limits.connectionsPerDevice).
// Throughout, /healthz of the broker is timed every 100 ms and the broker's resident memory read
// (this process in embedded mode, the node's /proc entry in cluster mode).
import { connect as netConnect, type Socket } from 'node:net';
import mqtt from 'mqtt';

export interface KvTarget {
  /** where the KV writes go (the api node in cluster mode) */
  apiUrl: string;
  /** the broker's HTTP port: /healthz and /metrics */
  brokerUrl: string;
  mqttPort: number;
  adminKey: string;
  device: { id: number; key: string };
  /** the broker's resident memory now, bytes */
  rss(): number;
}

export interface KvAttackOptions {
  stalled: number;
  reloads: number;
  seconds: number;
  perSecond: number;
}

export interface KvFigures {
  /** 64 KiB values the store took before the first refusal, and that refusal's status */
  filled: number;
  refusedWith: number;
  rssBefore: number;
  rssMax: number;
  healthP50: number;
  healthMax: number;
  healthFailures: number;
  healthSamples: number;
  /** reloads the reading connection received, of those it asked */
  readerReloads: number;
  readerAsked: number;
  /** stalled connections the broker closed at the output bound while they stayed */
  stalledClosed: number;
}

const VALUE = 'x'.repeat(65_534);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function str(s: string): Buffer {
  const b = Buffer.from(s);
  const len = Buffer.alloc(2);
  len.writeUInt16BE(b.length);
  return Buffer.concat([len, b]);
}
function varint(n: number): Buffer {
  const out: number[] = [];
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    out.push(byte);
  } while (n > 0);
  return Buffer.from(out);
}
const packet = (first: number, body: Buffer) => Buffer.concat([Buffer.from([first]), varint(body.length), body]);

/** a raw connection that subscribes to its kv topic, then never reads again */
async function stalledConnection(t: KvTarget, i: number, reloads: number): Promise<Socket> {
  const s = await new Promise<Socket>((resolve, reject) => {
    const sock = netConnect(t.mqttPort, '127.0.0.1', () => resolve(sock));
    sock.once('error', reject);
  });
  s.on('error', () => undefined);
  const topic = `/devices/${t.device.id}/kv`;
  const connect = Buffer.concat([str('MQTT'), Buffer.from([4, 0xc2, 0, 0]), str(`stalled${i}`), str(String(t.device.id)), str(t.device.key)]);
  s.write(packet(0x10, connect));
  await new Promise<void>((resolve) => s.once('data', () => resolve()));
  s.write(packet(0x82, Buffer.concat([Buffer.from([0, 1]), str(topic), Buffer.from([0])])));
  await sleep(50);
  s.pause();
  const reload = packet(0x30, Buffer.concat([str(topic), Buffer.from('{"action":"reload"}')]));
  for (let r = 0; r < reloads; r++) s.write(reload);
  return s;
}

async function slowClosed(t: KvTarget): Promise<number> {
  const text = await (await fetch(`${t.brokerUrl}/metrics`)).text().catch(() => '');
  const line = text.split('\n').find((l) => l.startsWith('hearth_broker_slow_consumers_closed_total{transport="mqtt_tcp"}'));
  return line ? Number(line.split(' ').pop()) : 0;
}

export async function kvAttack(t: KvTarget, o: KvAttackOptions): Promise<KvFigures> {
  const f: KvFigures = {
    filled: 0,
    refusedWith: 0,
    rssBefore: t.rss(),
    rssMax: 0,
    healthP50: 0,
    healthMax: 0,
    healthFailures: 0,
    healthSamples: 0,
    readerReloads: 0,
    readerAsked: 0,
    stalledClosed: 0,
  };
  const auth = { authorization: `ModeCloud ${t.adminKey}`, 'content-type': 'application/json' };
  for (; f.filled < 2000; f.filled++) {
    const r = await fetch(`${t.apiUrl}/devices/${t.device.id}/kv/big${f.filled}`, { method: 'PUT', headers: auth, body: JSON.stringify({ value: VALUE }) });
    if (r.status !== 204) {
      f.refusedWith = r.status;
      break;
    }
  }
  const closedBefore = await slowClosed(t);

  // the samplers: /healthz latency and resident memory, every 100 ms until stopped
  const latencies: number[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      f.rssMax = Math.max(f.rssMax, t.rss());
      const start = process.hrtime.bigint();
      const ok = await fetch(`${t.brokerUrl}/healthz`, { signal: AbortSignal.timeout(10_000) }).then(
        (r) => r.status === 200,
        () => false,
      );
      latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
      if (!ok) f.healthFailures++;
      await sleep(100);
    }
  })();

  const sockets: Socket[] = [];
  let reader: mqtt.MqttClient | undefined;
  try {
    for (let i = 0; i < o.stalled; i++) sockets.push(await stalledConnection(t, i, o.reloads));
    await sleep(o.seconds * 1000);
    f.stalledClosed = (await slowClosed(t)) - closedBefore;
    for (const s of sockets.splice(0)) s.destroy();
    // the broker sees them go before the reader comes (connections per device)
    await sleep(1000);
    reader = await mqtt.connectAsync(`mqtt://127.0.0.1:${t.mqttPort}`, {
      username: String(t.device.id),
      password: t.device.key,
      reconnectPeriod: 0,
      connectTimeout: 30_000,
    });
    reader.on('message', (_topic, payload) => {
      if (payload.includes('"action":"reload"')) f.readerReloads++;
    });
    const topic = `/devices/${t.device.id}/kv`;
    await reader.subscribeAsync(topic, { qos: 0 });
    const until = Date.now() + o.seconds * 1000;
    while (Date.now() < until) {
      reader.publish(topic, '{"action":"reload"}', { qos: 0 });
      f.readerAsked++;
      await sleep(1000 / o.perSecond);
    }
    await sleep(500);
  } finally {
    sampling = false;
    await sampler;
    await reader?.endAsync(true).catch(() => undefined);
    for (const s of sockets) s.destroy();
  }
  latencies.sort((a, b) => a - b);
  f.healthSamples = latencies.length;
  f.healthP50 = latencies[Math.floor(latencies.length / 2)] ?? 0;
  f.healthMax = latencies[latencies.length - 1] ?? 0;
  return f;
}

export function kvLine(label: string, f: KvFigures, mib: (n: number) => string): string {
  return (
    `  kv ${label}: store took ${f.filled} x 64 KiB (then ${f.refusedWith}); RSS ${mib(f.rssBefore)} -> max ${mib(f.rssMax)}; ` +
    `/healthz p50 ${f.healthP50.toFixed(1)} ms, max ${f.healthMax.toFixed(1)} ms over ${f.healthSamples} (${f.healthFailures} failed); ` +
    `reader got ${f.readerReloads} reloads of ${f.readerAsked} asked; ${f.stalledClosed} stalled connections closed at the output bound`
  );
}
