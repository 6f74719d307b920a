// Load generator, `connect` mode: N raw MQTT 3.1.1 connections (CONNECT with credentials,
// SUBSCRIBE to one topic, then idle), as light as a client can be, for the connections bench.
import { connect as netConnect, type Socket } from 'node:net';

export interface ConnectJob {
  type: 'connect';
  port: number;
  clients: { username?: string; password?: string; clientId: string; topic: string }[];
  /** CONNECTs in flight at once */
  concurrency: number;
  keepalive: number;
}

const sockets: Socket[] = [];

function str(s: string): Buffer {
  const b = Buffer.from(s, 'utf8');
  return Buffer.concat([Buffer.from([b.length >> 8, b.length & 0xff]), b]);
}
function withHeader(type: number, body: Buffer): Buffer {
  const len: number[] = [];
  let n = body.length;
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    len.push(byte);
  } while (n > 0);
  return Buffer.concat([Buffer.from([type, ...len]), body]);
}
export function connectPacket(c: { username?: string; password?: string; clientId: string }, keepalive: number): Buffer {
  let flags = 0x02;
  if (c.username !== undefined) flags |= 0x80;
  if (c.password !== undefined) flags |= 0x40;
  const parts = [str('MQTT'), Buffer.from([4, flags, keepalive >> 8, keepalive & 0xff]), str(c.clientId)];
  if (c.username !== undefined) parts.push(str(c.username));
  if (c.password !== undefined) parts.push(str(c.password));
  return withHeader(0x10, Buffer.concat(parts));
}
/** SUBSCRIBE (packet id 1) to each topic at QoS 1 */
export function subscribePacket(topics: string | string[]): Buffer {
  const list = typeof topics === 'string' ? [topics] : topics;
  return withHeader(0x82, Buffer.concat([Buffer.from([0, 1]), ...list.flatMap((t) => [str(t), Buffer.from([1])])]));
}

/** one connection: CONNECT, CONNACK 0, SUBSCRIBE, SUBACK; then it stays open and idle */
function openOne(port: number, c: ConnectJob['clients'][number], keepalive: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = netConnect(port, '127.0.0.1');
    let buf = Buffer.alloc(0);
    let stage = 0;
    s.on('error', (e) => (stage < 2 ? reject(e) : undefined));
    s.on('connect', () => s.write(connectPacket(c, keepalive)));
    s.on('data', (d) => {
      if (stage === 2) return;
      buf = Buffer.concat([buf, d]);
      if (stage === 0 && buf.length >= 4) {
        if (buf[0] !== 0x20 || buf[3] !== 0) return reject(new Error(`CONNACK ${buf[3]} for ${c.clientId}`));
        buf = buf.subarray(4);
        stage = 1;
        s.write(subscribePacket(c.topic));
      }
      // the broker may send other packets (a KV reload...) before or after the SUBACK
      const at = buf.indexOf(0x90);
      if (stage === 1 && at >= 0 && buf.length >= at + 5) {
        stage = 2;
        buf = Buffer.alloc(0);
        sockets.push(s);
        resolve();
      }
    });
  });
}

export async function connectAll(j: ConnectJob, send: (m: unknown) => void): Promise<void> {
  const start = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < j.clients.length) {
      const c = j.clients[next++];
      await openOne(j.port, c, j.keepalive);
    }
  };
  try {
    await Promise.all(Array.from({ length: j.concurrency }, worker));
    send({ type: 'connected', count: sockets.length, ms: performance.now() - start });
  } catch (e) {
    send({ type: 'error', message: (e as Error).message });
  }
}

export function closeConnections(): void {
  for (const s of sockets) s.destroy();
}
