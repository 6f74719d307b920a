// Real clients for the broker tests: MQTT.js over TCP and WebSocket, `ws`, raw sockets. Every
// client made here is closed when the test finishes (onTestFinished).
import { onTestFinished } from 'vitest';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { WebSocket } from 'ws';
import type { SeededDevice, TestHearth } from '../../helpers/hearth.js';

import { MIN_WAIT_MS } from '../../helpers/wait.js';

// The deadlines of the inboxes below share the floor of the suite's one wait helper.
export { MIN_WAIT_MS, eventually } from '../../helpers/wait.js';
const floor = (ms: number) => Math.max(ms, MIN_WAIT_MS);

export interface Inbox {
  /** messages received so far, as [topic, parsed JSON or text] */
  readonly messages: [string, any][];
  /** the next message on that topic not yet taken (waits up to timeoutMs) */
  next(topic?: string, timeoutMs?: number): Promise<any>;
}

function parse(buf: Buffer | string): any {
  const text = buf.toString();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** collects MQTT messages; `next` hands them out in order */
export function inbox(client: MqttClient): Inbox {
  const messages: [string, any][] = [];
  let taken = 0;
  const waiters: (() => void)[] = [];
  client.on('message', (topic, payload) => {
    messages.push([topic, parse(payload)]);
    waiters.splice(0).forEach((w) => w());
  });
  return {
    messages,
    async next(topic, timeoutMs = MIN_WAIT_MS) {
      timeoutMs = floor(timeoutMs);
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        for (let i = taken; i < messages.length; i++) {
          if (!topic || messages[i][0] === topic) {
            const [m] = messages.splice(i, 1);
            return m[1];
          }
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no MQTT message on ${topic ?? 'any topic'} within ${timeoutMs} ms (have ${JSON.stringify(messages)})`);
        await new Promise<void>((r) => {
          const t = setTimeout(r, left);
          waiters.push(() => {
            clearTimeout(t);
            r();
          });
        });
      }
    },
  };
}

export async function mqttConnect(
  t: TestHearth,
  device: SeededDevice | null,
  opts: IClientOptions & { ws?: boolean; path?: string } = {},
): Promise<MqttClient> {
  const { ws, path, ...rest } = opts;
  const url = ws ? `ws://127.0.0.1:${t.httpPort}${path ?? '/mqtt'}` : `mqtt://127.0.0.1:${t.mqttPort}`;
  const client = await mqtt.connectAsync(url, {
    username: device ? String(device.id) : undefined,
    password: device ? device.key : undefined,
    reconnectPeriod: 0,
    // the CONNACK's wait only bounds a hang: 5 s ran out for an in-process broker under stress-ng
    connectTimeout: 15_000,
    ...rest,
  });
  onTestFinished(() => client.endAsync(true).catch(() => undefined));
  return client;
}

/** connects and expects a refusal; resolves to the CONNACK return code */
export async function mqttRefused(t: TestHearth, username: string | undefined, password: string | undefined, opts: IClientOptions = {}): Promise<number> {
  const client = mqtt.connect(`mqtt://127.0.0.1:${t.mqttPort}`, { username, password, reconnectPeriod: 0, connectTimeout: 15_000, ...opts });
  onTestFinished(() => client.endAsync(true).catch(() => undefined));
  return new Promise((resolve, reject) => {
    client.once('connect', () => reject(new Error('connection was accepted')));
    client.once('error', (err: Error & { code?: number }) => resolve(err.code ?? -1));
  });
}

export interface WsPeer {
  ws: WebSocket;
  /** text frames received, parsed */
  readonly frames: any[];
  next(timeoutMs?: number): Promise<any>;
  closed: Promise<{ code: number; reason: string }>;
}

/** a `ws` client; resolves once open, rejects with the HTTP status when the upgrade is refused */
export function wsConnect(t: TestHearth, path: string, opts: { token?: string; protocols?: string[]; headers?: Record<string, string> } = {}): Promise<WsPeer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `ModeCloud ${opts.token}`;
  const ws = new WebSocket(`${t.wsUrl}${path}`, opts.protocols ?? [], { headers });
  onTestFinished(() => ws.terminate());
  const frames: any[] = [];
  let taken = 0;
  const waiters: (() => void)[] = [];
  ws.on('message', (data) => {
    frames.push(parse(data as Buffer));
    waiters.splice(0).forEach((w) => w());
  });
  const closed = new Promise<{ code: number; reason: string }>((r) => ws.once('close', (code, reason) => r({ code, reason: reason.toString() })));
  const peer: WsPeer = {
    ws,
    frames,
    closed,
    async next(timeoutMs = MIN_WAIT_MS) {
      timeoutMs = floor(timeoutMs);
      const deadline = Date.now() + timeoutMs;
      while (taken >= frames.length) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no WebSocket frame within ${timeoutMs} ms`);
        await new Promise<void>((r) => {
          const tm = setTimeout(r, left);
          waiters.push(() => {
            clearTimeout(tm);
            r();
          });
        });
      }
      return frames[taken++];
    },
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(peer));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c));
      res.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode} ${body}`), { status: res.statusCode, body: parse(body) })));
    });
    ws.once('error', (err) => reject(err));
  });
}

/** the general log lines of project 1 from the broker */
export async function brokerLogLines(t: TestHearth): Promise<string[]> {
  const r = await t.deps.store.logs.list({ projectId: 1, source: 'broker' }, { skip: 0, limit: 1000 });
  return r.items.map((i) => i.text);
}

/**
 * SUBSCRIBE and the granted QoS per filter, refusals (0x80 = 128) included: MQTT.js rejects the
 * whole call when one filter is refused, with the SUBACK attached.
 */
export async function subscribeGranted(client: MqttClient, filters: Record<string, 0 | 1 | 2>): Promise<Record<string, number>> {
  const topics = Object.keys(filters);
  const map = Object.fromEntries(topics.map((f) => [f, { qos: filters[f] }]));
  try {
    const granted = await client.subscribeAsync(map);
    return Object.fromEntries(granted.map((g) => [g.topic, g.qos]));
  } catch (err) {
    const granted = (err as { packet?: { granted?: number[] } }).packet?.granted;
    if (!granted) throw err;
    return Object.fromEntries(topics.map((f, i) => [f, granted[i]]));
  }
}

/** the value of one series in the text exposition, undefined when it is not there */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = Object.entries(labels);
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (want.every(([k, v]) => have[k] === v) && Object.keys(have).length === want.length) return Number(m[3]);
  }
  return undefined;
}
