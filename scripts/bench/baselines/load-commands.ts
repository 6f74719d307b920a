// Load generator, `commands` mode: one HTTP client and one device in the same process, so both
// ends of each measurement read the same clock: PUT a command, time until the device has it.
import http from 'node:http';
import mqtt from 'mqtt';
import { WebSocket } from 'ws';

/** PUT a command over HTTP, time until the device has it (MQTT or the command WebSocket) */
export interface CommandJob {
  type: 'commands';
  /** the full URL of PUT /devices/{id}/command (or of the baseline's endpoint) */
  putUrl: string;
  headers: Record<string, string>;
  device: { kind: 'mqtt'; url: string; username?: string; password?: string; topic: string } | { kind: 'ws'; url: string; headers: Record<string, string> };
  count: number;
  warmup: number;
}

export async function commands(j: CommandJob, send: (m: unknown) => void): Promise<void> {
  let arrived: (() => void) | undefined;
  const onArrival = () => arrived?.();
  let close: () => Promise<unknown>;
  if (j.device.kind === 'mqtt') {
    const c = await mqtt.connectAsync(j.device.url, {
      username: j.device.username,
      password: j.device.password,
      reconnectPeriod: 0,
      clientId: `bench-cmd-${process.pid}`,
    });
    await c.subscribeAsync(j.device.topic, { qos: 1 });
    c.on('message', onArrival);
    close = () => c.endAsync(true);
  } else {
    const ws = new WebSocket(j.device.url, { headers: j.device.headers });
    await new Promise((r, e) => {
      ws.once('open', r);
      ws.once('error', e);
    });
    ws.on('message', onArrival);
    close = async () => ws.terminate();
  }
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const target = new URL(j.putUrl);
  const put = (n: number) =>
    new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({ action: 'bench-command', parameters: { n } });
      const req = http.request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'PUT',
          agent,
          headers: { ...j.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const latencies: number[] = [];
  for (let i = 0; i < j.warmup + j.count; i++) {
    const got = new Promise<void>((r) => (arrived = r));
    const t0 = performance.now();
    const status = put(i);
    await got;
    const ms = performance.now() - t0;
    const code = await status;
    if (code !== 204) throw new Error(`PUT answered ${code}`);
    if (i >= j.warmup) latencies.push(ms);
  }
  agent.destroy();
  await close();
  send({ type: 'latencies', latencies });
}
