// Raw MQTT 3.1.1 for clients that misbehave on purpose: sockets, hand-built packets, and waiting
// for the broker to close them. Every socket made here is destroyed when the test finishes.
import { connect as netConnect, type Socket } from 'node:net';
import { onTestFinished } from 'vitest';
import type { TestHearth } from '../../helpers/hearth.js';
import { MIN_WAIT_MS } from './clients.js';

/** a raw TCP socket to the MQTT port */
export function rawMqtt(t: TestHearth): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = netConnect(t.mqttPort, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
    onTestFinished(() => void s.destroy());
  });
}

/** resolves when the socket is closed by the other end (or rejects after timeoutMs) */
export function closedWithin(s: Socket, timeoutMs: number): Promise<number> {
  const start = Date.now();
  return new Promise((resolve, reject) => {
    if (s.destroyed) return resolve(0);
    const t = setTimeout(() => reject(new Error(`socket still open after ${timeoutMs} ms`)), timeoutMs);
    s.once('close', () => {
      clearTimeout(t);
      resolve(Date.now() - start);
    });
  });
}

function str(s: string): Buffer {
  const b = Buffer.from(s, 'utf8');
  const len = Buffer.alloc(2);
  len.writeUInt16BE(b.length);
  return Buffer.concat([len, b]);
}

/** the remaining-length varint of the fixed header */
export function varint(n: number): Buffer {
  const out: number[] = [];
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    out.push(byte);
  } while (n > 0);
  return Buffer.from(out);
}

export function connectPacket(o: { clientId: string; username?: string; password?: string; keepalive?: number; clean?: boolean }): Buffer {
  let flags = o.clean === false ? 0 : 0x02; // clean session
  if (o.username !== undefined) flags |= 0x80;
  if (o.password !== undefined) flags |= 0x40;
  const keep = Buffer.alloc(2);
  keep.writeUInt16BE(o.keepalive ?? 0);
  const body = Buffer.concat([
    str('MQTT'),
    Buffer.from([4, flags]),
    keep,
    str(o.clientId),
    ...(o.username !== undefined ? [str(o.username)] : []),
    ...(o.password !== undefined ? [str(o.password)] : []),
  ]);
  return Buffer.concat([Buffer.from([0x10]), varint(body.length), body]);
}

export function subscribePacket(messageId: number, topic: string, qos: number): Buffer {
  const id = Buffer.alloc(2);
  id.writeUInt16BE(messageId);
  const body = Buffer.concat([id, str(topic), Buffer.from([qos])]);
  return Buffer.concat([Buffer.from([0x82]), varint(body.length), body]);
}

/** a PUBLISH: QoS 1 with `messageId`, QoS 0 without */
export function publishPacket(topic: string, payload: string, messageId?: number): Buffer {
  const id = Buffer.alloc(messageId === undefined ? 0 : 2);
  if (messageId !== undefined) id.writeUInt16BE(messageId);
  const body = Buffer.concat([str(topic), id, Buffer.from(payload)]);
  return Buffer.concat([Buffer.from([messageId === undefined ? 0x30 : 0x32]), varint(body.length), body]);
}

/** reads until a CONNACK arrives; resolves its return code */
export function connackOf(s: Socket, timeoutMs = MIN_WAIT_MS): Promise<number> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const t = setTimeout(() => reject(new Error('no CONNACK')), timeoutMs);
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length >= 4 && buf[0] === 0x20) {
        clearTimeout(t);
        s.off('data', onData);
        resolve(buf[3]);
      }
    };
    s.on('data', onData);
  });
}

/** the packets a socket receives, split by their fixed header: [first byte, body] */
export function packetsOf(s: Socket): { packets: [number, Buffer][]; next(timeoutMs?: number): Promise<[number, Buffer]> } {
  const packets: [number, Buffer][] = [];
  let taken = 0;
  let buf = Buffer.alloc(0);
  const waiters: (() => void)[] = [];
  s.on('data', (d: Buffer) => {
    buf = Buffer.concat([buf, d]);
    for (;;) {
      let len = 0;
      let mul = 1;
      let i = 1;
      for (; i < buf.length && i < 5; i++) {
        len += (buf[i] & 0x7f) * mul;
        mul *= 128;
        if (!(buf[i] & 0x80)) break;
      }
      if (i >= buf.length || buf.length < i + 1 + len) return;
      packets.push([buf[0], buf.subarray(i + 1, i + 1 + len)]);
      buf = buf.subarray(i + 1 + len);
      waiters.splice(0).forEach((w) => w());
    }
  });
  return {
    packets,
    async next(timeoutMs = MIN_WAIT_MS) {
      const deadline = Date.now() + timeoutMs;
      while (taken >= packets.length) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no MQTT packet within ${timeoutMs} ms`);
        await new Promise<void>((r) => {
          const t = setTimeout(r, left);
          waiters.push(() => {
            clearTimeout(t);
            r();
          });
        });
      }
      return packets[taken++];
    },
  };
}
