// A simulated device, written against the wire contract only (docs/devices.md#kv-sync, docs/concepts.md#log-requests): MQTT.js for its KV
// store, plain HTTP for the upload. It keeps a mirror of its KV store from the sync messages,
// notices the service-held key `sys:logRequest`, and uploads the file it is given in parts.
import mqtt, { type MqttClient } from 'mqtt';
import { onTestFinished } from 'vitest';
import { MIN_WAIT_MS } from '../../helpers/wait.js';

export interface LogRequestKey {
  id: string;
  token: string;
  start: string | null;
  end: string | null;
  prefixes: string[];
}

export interface SimDevice {
  client: MqttClient;
  /** the KV store as the device knows it */
  kv: Map<string, unknown>;
  /** resolves with the next value of sys:logRequest (present now, or when it arrives) */
  logRequest(timeoutMs?: number): Promise<LogRequestKey>;
  /** resolves once sys:logRequest is gone from the device's store */
  logRequestGone(timeoutMs?: number): Promise<void>;
  /** the upload of docs/concepts.md#log-requests; `order` lets the device send parts in any order */
  upload(key: LogRequestKey, file: Uint8Array, o?: { contentType?: string; filename?: string; order?: (n: number) => number[] }): Promise<void>;
  close(): Promise<void>;
}

const KEY = 'sys:logRequest';

export async function startSimDevice(o: { mqttPort: number; httpUrl: string; id: number; key: string }): Promise<SimDevice> {
  const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${o.mqttPort}`, {
    username: String(o.id),
    password: o.key,
    reconnectPeriod: 0,
    connectTimeout: 5000,
  });
  onTestFinished(() => client.endAsync(true).catch(() => undefined));
  const kv = new Map<string, unknown>();
  const changed: (() => void)[] = [];
  client.on('message', (_topic, payload) => {
    const m = JSON.parse(payload.toString());
    if (m.action === 'reload') {
      kv.clear();
      for (const i of m.items) kv.set(i.key, i.value);
    } else if (m.action === 'set') kv.set(m.key, m.value);
    else if (m.action === 'delete') kv.delete(m.key);
    changed.splice(0).forEach((f) => f());
  });
  await client.subscribeAsync(`/devices/${o.id}/kv`, { qos: 1 });

  const until = async <T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = check();
      if (v !== undefined) return v;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`device ${o.id}: ${what} within ${timeoutMs} ms (kv: ${JSON.stringify([...kv])})`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        changed.push(() => (clearTimeout(t), r()));
      });
    }
  };

  const http = async (method: string, url: string, body?: Uint8Array | string, type = 'application/json') => {
    const res = await fetch(url, { method, body, headers: body === undefined ? {} : { 'content-type': type } });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${new URL(url).pathname.replace(/lr\.[^/]+/, 'lr.…')} → ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };

  return {
    client,
    kv,
    logRequest: (timeoutMs = MIN_WAIT_MS) => until(() => kv.get(KEY) as LogRequestKey | undefined, timeoutMs, 'no sys:logRequest'),
    logRequestGone: async (timeoutMs = MIN_WAIT_MS) => {
      await until(() => (kv.has(KEY) ? undefined : true), timeoutMs, 'sys:logRequest still there');
    },
    async upload(key, file, u = {}) {
      const session = await http(
        'POST',
        `${o.httpUrl}/deviceLogger/${key.token}`,
        JSON.stringify({ size: file.length, contentType: u.contentType ?? 'text/plain', filename: u.filename ?? 'device.log' }),
      );
      const order = u.order ?? ((n) => Array.from({ length: n }, (_, i) => i));
      for (const i of order(session.numOfParts)) {
        await http('PUT', session.urls[i], file.subarray(i * session.partSize, (i + 1) * session.partSize), 'application/octet-stream');
      }
      await http('POST', `${o.httpUrl}/deviceLogger/${key.token}/uploads/${session.uploadId}`);
    },
    close: () => client.endAsync(),
  };
}
