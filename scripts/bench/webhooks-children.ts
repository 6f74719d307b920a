// The child processes of `npm run bench -- webhooks` (see webhooks.ts), as plain ESM JavaScript
// written to a temp file and forked: no build step, and they run on cores of their own. Clocks:
// performance.timeOrigin + performance.now() is epoch milliseconds with sub-millisecond precision
// in every process, so a receiver can subtract a send time taken in another process.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const MQTT_MODULE = pathToFileURL(createRequire(import.meta.url).resolve('mqtt')).href;

/**
 * counts distinct bench events (eventData.n), keeps arrival − send per event, answers 200 at once;
 * other events (Hearth's _deviceConnected_ ...) are answered and not counted. A request it cannot
 * read (not JSON, or a benchReading without eventData.n / sentAt) is answered 400 and reported to the
 * parent with what came (method, url, headers, body length and start, which request of its
 * connection it was), which fails the run with that; it is reported again in answer to the next
 * `expect`, in case it came while no run was listening.
 */
export const RECEIVER = `
import http from 'node:http';
const now = () => performance.timeOrigin + performance.now();
let expect = 0, seen = new Set(), lat = [], last = 0, dup = 0, cpu;
const unread = [];
const nthOnSocket = new WeakMap();
function refuse(req, res, raw, why) {
  const s = req.socket;
  const info = { why, method: req.method, url: req.url, httpVersion: req.httpVersion, headers: req.headers, bodyBytes: raw.length,
    bodyStart: raw.subarray(0, 120).toString('latin1'), from: s.remoteAddress + ':' + s.remotePort, requestOnConnection: nthOnSocket.get(s) };
  unread.push(info);
  process.send({ error: 'webhook receiver: a request it could not read: ' + JSON.stringify(info) });
  res.statusCode = 400;
  res.end(why);
}
const server = http.createServer((req, res) => {
  nthOnSocket.set(req.socket, (nthOnSocket.get(req.socket) ?? 0) + 1);
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const at = now();
    const raw = Buffer.concat(chunks);
    let body;
    try { body = JSON.parse(raw.toString()); } catch (err) { return refuse(req, res, raw, String(err)); }
    // Hearth's own events (_deviceConnected_ ...) reach the module too: answered, not counted
    if (body?.eventType !== 'benchReading') return res.end('ok');
    const { n, sentAt } = body.eventData ?? {};
    if (typeof n !== 'number' || typeof sentAt !== 'number') return refuse(req, res, raw, 'a benchReading without eventData.n / eventData.sentAt');
    res.end('ok');
    if (seen.has(n)) { dup++; return; }
    seen.add(n); lat.push(at - sentAt); last = at;
    if (expect && seen.size === expect) { const u = process.cpuUsage(cpu); process.send({ done: true, latencies: lat, last, dup, cpuMicros: u.user + u.system }); }
  });
});
server.keepAliveTimeout = 30000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => {
  if (!m.expect) return;
  if (unread.length > 0) return process.send({ error: 'webhook receiver: ' + unread.length + ' request(s) it could not read, the first: ' + JSON.stringify(unread[0]) });
  expect = m.expect; seen = new Set(); lat = []; dup = 0; cpu = process.cpuUsage(); process.send({ ready: true });
});
`;

/** sends a job's events over HTTP or MQTT (QoS 1), closed loop or at a fixed rate */
export const GENERATOR = `
import http from 'node:http';
import mqtt from '${MQTT_MODULE}';
const now = () => performance.timeOrigin + performance.now();
const eventData = (n) => ({ n, sentAt: now(), reading: 21.5, unit: 'C' });
async function viaHttp({ url, method, headers, count, concurrency, offset, shape, rate }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const target = new URL(url);
  const send = (n) => new Promise((resolve, reject) => {
    const data = eventData(offset + n);
    const body = JSON.stringify(shape === 'event' ? { eventType: 'benchReading', eventData: data }
      : { eventType: 'benchReading', eventData: data, timestamp: new Date().toISOString(), homeId: 1, originDeviceId: 1, originDeviceClass: 'default' });
    const req = http.request({ host: target.hostname, port: target.port, path: target.pathname, method, agent,
      headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode >= 200 && res.statusCode < 300 ? resolve() : reject(new Error('status ' + res.statusCode))));
    });
    req.on('error', reject);
    req.end(body);
  });
  await drive(count, concurrency, rate, send);
  agent.destroy();
}
// closed loop (as fast as answers come, \`concurrency\` in flight) or, with a rate, open loop:
// event n leaves at start + n / rate whatever the answers do
async function drive(count, concurrency, rate, send) {
  let next = 0;
  if (!rate) return Promise.all(Array.from({ length: concurrency }, async () => { while (next < count) await send(next++); }));
  const start = now(), pending = [];
  for (let n = 0; n < count; n++) {
    const wait = start + (n * 1000) / rate - now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    pending.push(send(n));
  }
  await Promise.all(pending);
}
async function viaMqtt({ mqttUrl, deviceId, deviceKey, count, concurrency, offset, rate }) {
  const client = await mqtt.connectAsync(mqttUrl, { username: String(deviceId), password: deviceKey, reconnectPeriod: 0, protocolVersion: 4 });
  const topic = '/devices/' + deviceId + '/event';
  await drive(count, concurrency, rate, (n) => client.publishAsync(topic, JSON.stringify({ eventType: 'benchReading', eventData: eventData(offset + n) }), { qos: 1 }));
  await client.endAsync();
}
process.on('message', async (job) => {
  const cpu = process.cpuUsage();
  const started = now();
  try {
    await (job.mqttUrl ? viaMqtt(job) : viaHttp(job));
    const u = process.cpuUsage(cpu);
    process.send({ started, sent: now(), cpuMicros: u.user + u.system });
  } catch (err) { process.send({ error: String(err) }); }
});
`;
