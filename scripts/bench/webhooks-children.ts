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

/**
 * sends a job's events over HTTP or MQTT (QoS 1), closed loop or at a fixed rate. HTTP through
 * node:http's client (an http.Agent keep-alive pool), or with `raw`, over `concurrency` raw
 * keep-alive sockets, one request in flight on each (a send waits for a free socket, as the Agent
 * queues it), each request one write of a head prepared once and the event's body, every answer
 * parsed (status line, Content-Length) and its status checked. node:http's client costs 60 to
 * 110 µs of CPU more per event than these sockets, about twice the MQTT client: on a 2-core
 * machine an HTTP run through it measured its generator as much as Hearth. HTTP events in are sent raw, and compared with a bare
 * POST loop sent raw too; MQTT events in keep the node:http loop they have always been compared
 * with (issue #26).
 */
export const GENERATOR = `
import http from 'node:http';
import net from 'node:net';
import mqtt from '${MQTT_MODULE}';
const now = () => performance.timeOrigin + performance.now();
const eventData = (n) => ({ n, sentAt: now(), reading: 21.5, unit: 'C' });
const CRLF2 = Buffer.from('\\r\\n\\r\\n');
/** one keep-alive connection: request(text) resolves with the answer's status once all of it is read */
function connection(host, port) {
  const socket = net.connect({ host, port, noDelay: true });
  let buf = null, waiting = null, need = -1, status = 0;
  const fail = (err) => { if (waiting) { const w = waiting; waiting = null; w.reject(err); } };
  socket.on('error', fail);
  socket.on('close', () => fail(new Error('the server closed the connection')));
  socket.on('data', (chunk) => {
    buf = buf ? Buffer.concat([buf, chunk]) : chunk;
    if (need < 0) {
      const end = buf.indexOf(CRLF2);
      if (end < 0) return;
      const head = buf.toString('latin1', 0, end);
      status = Number(head.slice(9, 12));
      const length = /\\r\\ncontent-length:[ \\t]*(\\d+)/i.exec(head);
      if (/\\r\\ntransfer-encoding:/i.test(head)) return fail(new Error('a chunked answer: this generator reads Content-Length bodies only'));
      if (/\\r\\nconnection:[ \\t]*close/i.test(head)) return fail(new Error('the server answered Connection: close'));
      need = end + 4 + (status === 204 || status === 304 ? 0 : length ? Number(length[1]) : 0);
    }
    if (buf.length < need) return;
    if (buf.length > need) return fail(new Error('more bytes than one answer'));
    buf = null; need = -1;
    const w = waiting; waiting = null;
    w?.resolve(status);
  });
  return {
    request: (text) => new Promise((resolve, reject) => { waiting = { resolve, reject }; socket.write(text); }),
    close: () => socket.destroy(),
  };
}
const bodyOf = (shape, data) => JSON.stringify(shape === 'event' ? { eventType: 'benchReading', eventData: data }
  : { eventType: 'benchReading', eventData: data, timestamp: new Date().toISOString(), homeId: 1, originDeviceId: 1, originDeviceClass: 'default' });
async function viaNodeHttp({ url, method, headers, count, concurrency, offset, shape, rate }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const target = new URL(url);
  const send = (n) => new Promise((resolve, reject) => {
    const body = bodyOf(shape, eventData(offset + n));
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
async function viaRawHttp({ url, method, headers, count, concurrency, offset, shape, rate }) {
  const target = new URL(url);
  let head = method + ' ' + target.pathname + ' HTTP/1.1\\r\\nhost: ' + target.host + '\\r\\ncontent-type: application/json\\r\\n';
  for (const [k, v] of Object.entries(headers)) head += k + ': ' + v + '\\r\\n';
  head += 'content-length: ';
  const free = Array.from({ length: concurrency }, () => connection(target.hostname, Number(target.port)));
  const all = [...free];
  const queue = [];
  const send = async (n) => {
    const body = bodyOf(shape, eventData(offset + n));
    const conn = free.pop() ?? (await new Promise((r) => queue.push(r)));
    try {
      const status = await conn.request(head + Buffer.byteLength(body) + '\\r\\n\\r\\n' + body);
      if (status < 200 || status >= 300) throw new Error('status ' + status);
    } finally {
      const next = queue.shift();
      if (next) next(conn); else free.push(conn);
    }
  };
  try {
    await drive(count, concurrency, rate, send);
  } finally {
    for (const c of all) c.close();
  }
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
// With \`noDelay\`, the client's socket sends each publish at once (TCP_NODELAY, as node:http's
// Agent does for the bare POST loop). mqtt.js leaves Nagle's algorithm on: a publish written while
// the last one is unacknowledged waits for the broker's ACK, which the broker's kernel delays
// until it has something to send, the PUBACK, that is until the last event is committed and
// synced. Paced, that put most events behind their predecessor's commit before they left this
// process (issue #26, timed per stage at half load, load average 15: publish to the broker's hook
// p50 1.4 ms with Nagle, 0.1 ms without; the whole path's p50 5.5 ms and 1.6 ms). Closed loops
// keep it on, as their throughput figures always were. Paced runs report each event's PUBACK
// time (\`acks\`, ms after its send): the ingest half of its latency.
async function viaMqtt({ mqttUrl, deviceId, deviceKey, count, concurrency, offset, rate, noDelay }) {
  const client = await mqtt.connectAsync(mqttUrl, { username: String(deviceId), password: deviceKey, reconnectPeriod: 0, protocolVersion: 4 });
  if (noDelay) client.stream.setNoDelay(true);
  const topic = '/devices/' + deviceId + '/event';
  const acks = rate ? [] : undefined;
  await drive(count, concurrency, rate, (n) => {
    const data = eventData(offset + n);
    const acked = client.publishAsync(topic, JSON.stringify({ eventType: 'benchReading', eventData: data }), { qos: 1 });
    return acks ? acked.then(() => void acks.push(now() - data.sentAt)) : acked;
  });
  await client.endAsync();
  return acks;
}
process.on('message', async (job) => {
  const cpu = process.cpuUsage();
  const started = now();
  try {
    const acks = await (job.mqttUrl ? viaMqtt(job) : job.raw ? viaRawHttp(job) : viaNodeHttp(job));
    const u = process.cpuUsage(cpu);
    process.send({ started, sent: now(), cpuMicros: u.user + u.system, acks });
  } catch (err) { process.send({ error: String(err) }); }
});
`;
