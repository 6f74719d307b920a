// Load generator of the fleet bench, one CHILD PROCESS per source address (127.0.0.2, 127.0.0.3,
// ...: each process and each address has its own open files and ephemeral ports). Each device is
// one raw MQTT 3.1.1 connection: CONNECT with its credentials (keep-alive 60, PINGREQ sent on
// time), SUBSCRIBE to its command and kv topics at QoS 1, PUBACK for what the broker sends, then
// idle. At most `inflight` connections are between their TCP connect and their SUBACK at a time.
// A connection that fails before its SUBACK is tried again after a random pause that doubles
// with each attempt (100-200 ms up to 1-2 s, as devices back off); one that
// the server closes later reconnects while `reconnect` is on, to another port of the list (the
// cluster's other brokers: the device id picks which, so a lost broker's devices spread evenly). Driven over IPC:
//   {type:'connect', ...}  → {type:'connected', count, ms, connack: ms[], failures}
//   {type:'drop'}          → {type:'dropped'}      (closes every connection, reconnects off)
//   {type:'reconnect'}     → {type:'reconnecting'}  (reconnects on: what is closed comes back)
//   {type:'status', reset} → {type:'status', up, lost, commands, failures} (lost: connections that were up and closed;
//                            commands: PUBLISHes received on command topics)
//   {type:'inflight', inflight} → {type:'inflight'} (the cap from now on: a storm of the whole fleet lifts it)
//   {type:'close'}
import { connect as netConnect, type Socket } from 'node:net';
import { connectPacket, subscribePacket } from './load-connect.js';

export interface FleetClient {
  username?: string;
  password?: string;
  clientId: string;
  deviceId: number;
  /** index into `ports` of the first broker to try */
  port: number;
}

export interface FleetJob {
  type: 'connect';
  ports: number[];
  localAddress: string;
  clients: FleetClient[];
  inflight: number;
  keepalive: number;
  /** reconnect a connection the server closes */
  reconnect: boolean;
}

/**
 * why attempts failed: TCP refused (nobody listening), closed before CONNACK, CONNACK not 0, SUBACK
 * 0x80; localPortInUse: the generator's own pick of a local port was taken (another socket on this
 * machine holds it), tried again at once on the next port: the generator's, not the server's
 */
export interface Failures {
  tcpRefused: number;
  closedBeforeConnack: number;
  connackRefused: number;
  subscribeRefused: number;
  localPortInUse: number;
}

interface State {
  c: FleetClient;
  socket?: Socket;
  up: boolean;
  /** attempts since it was last up: the pause before the next one doubles with each */
  tries?: number;
}

const send = (m: unknown): void => void process.send!(m);
let job: FleetJob | undefined;
let states: State[] = [];
let reconnect = false;
let upCount = 0;
/** connections that were up and were closed by the other side (or by a drop) */
let lost = 0;
/** PUBLISH packets received on a device's command topic (the rollout bench counts its notifications) */
let commands = 0;
let waitingFor: { start: number } | undefined;
const connack: number[] = [];
const failures: Failures = { tcpRefused: 0, closedBeforeConnack: 0, connackRefused: 0, subscribeRefused: 0, localPortInUse: 0 };

/**
 * Local ports are picked here, in turn over 1024-65535 of this generator's own address, not by the
 * kernel. A socket bound to an address before it connects (localAddress) gets its port from
 * bind(port 0), and Linux finds one by walking the ephemeral range (32768-60999, odd ports first)
 * for a port that no socket on that address holds, TIME_WAIT ones included: a walk that grows with
 * every connection open or recently closed. At 15,000 devices (3,750 per address, beside the TIME_WAIT
 * sockets of the run before) it cost the generators about 1 ms of kernel CPU per connect against
 * 0.05 ms at 5,000 (a raw accept-and-answer server: 2,548 connects/s at 5,000, 378/s at 15,000, the
 * generators' CPU 90% system time), and that, not the servers, held every server to about
 * 1,000 connects/s at 15,000. Binding a given port is one lookup. libuv sets SO_REUSEADDR, so a port
 * whose last connection is in TIME_WAIT binds again; a port held otherwise (a listener on 0.0.0.0,
 * the same four-tuple still open) fails at once and the next port is tried.
 */
const LOW_PORT = 1024;
const PORTS = 65536 - LOW_PORT;
let portCursor = Math.floor(Math.random() * PORTS);
const nextLocalPort = (): number => LOW_PORT + (portCursor++ % PORTS);
const queue: State[] = [];
let active = 0;

function pump(): void {
  while (active < job!.inflight && queue.length) open(queue.shift()!);
}

function retryLater(s: State, rotate: boolean): void {
  // another broker: the devices of one that is gone spread over all the others (device id modulo
  // their number), rather than all landing on the next one (4 brokers x 15,000: 30,000 on one
  // node, over the open-file limit of a process here)
  const ports = job!.ports.length;
  if (rotate && ports > 1) s.c.port = (s.c.port + 1 + (s.c.deviceId % (ports - 1))) % ports;
  // as a device backs off: 100 to 200 ms, doubling up to 1 to 2 s (mqtt.js waits 1 s); a fleet
  // retrying every 200 ms while the server is down spent the generators' CPU on refused SYNs
  const base = Math.min(1000, 100 * 2 ** Math.min(4, s.tries ?? 0));
  s.tries = (s.tries ?? 0) + 1;
  setTimeout(
    () => {
      queue.push(s);
      pump();
    },
    base + Math.random() * base,
  );
}

function checkDone(): void {
  if (waitingFor && upCount === states.length) {
    send({ type: 'connected', count: upCount, ms: performance.now() - waitingFor.start, connack, failures: { ...failures } });
    waitingFor = undefined;
  }
}

/** one connection: CONNECT, CONNACK 0, SUBSCRIBE (command, kv), SUBACK; then idle, answering QoS 1 publishes */
function open(s: State): void {
  active++;
  const j = job!;
  const t0 = performance.now();
  const socket = netConnect({ port: j.ports[s.c.port], host: '127.0.0.1', localAddress: j.localAddress, localPort: nextLocalPort() });
  s.socket = socket;
  let stage = 0; // 0 CONNECT sent, 1 SUBSCRIBE sent, 2 up
  let tcpUp = false;
  let tcpRefused = false;
  let portInUse = false;
  let buf: Buffer = Buffer.alloc(0);
  let settled = false;
  const settle = () => {
    if (!settled) ((settled = true), active--, pump());
  };
  socket.setNoDelay(true);
  socket.on('error', (e: NodeJS.ErrnoException) => {
    if (!tcpUp && e.code === 'ECONNREFUSED') ((tcpRefused = true), failures.tcpRefused++);
    // bind (EADDRINUSE) or connect (EADDRNOTAVAIL: that four-tuple is still in use) of our own pick of port
    if (!tcpUp && (e.code === 'EADDRINUSE' || e.code === 'EADDRNOTAVAIL')) ((portInUse = true), failures.localPortInUse++);
  });
  socket.on('connect', () => {
    tcpUp = true;
    socket.write(connectPacket(s.c, j.keepalive));
  });
  socket.on('close', () => {
    s.socket = undefined;
    if (stage < 2) {
      settle();
      // the port, not the server: the next one, now (the cursor moves on with every attempt)
      if (portInUse) {
        if (reconnect || waitingFor) setImmediate(() => (queue.push(s), pump()));
        return;
      }
      if (tcpUp && stage === 0) failures.closedBeforeConnack++;
      if (reconnect || waitingFor) retryLater(s, tcpRefused);
      return;
    }
    if (s.up) ((s.up = false), upCount--, lost++);
    if (reconnect) retryLater(s, true);
  });
  socket.on('data', (d: Buffer) => {
    buf = buf.length ? Buffer.concat([buf, d]) : d;
    for (;;) {
      // fixed header: type and flags, remaining length (1 to 4 bytes)
      let len = 0;
      let mul = 1;
      let i = 1;
      for (; i < 5 && i < buf.length; i++) {
        len += (buf[i] & 0x7f) * mul;
        mul *= 128;
        if (!(buf[i] & 0x80)) break;
      }
      if (i >= buf.length || buf.length < i + 1 + len) return;
      const first = buf[0];
      const body = buf.subarray(i + 1, i + 1 + len);
      buf = buf.subarray(i + 1 + len);
      const type = first >> 4;
      if (type === 2 && stage === 0) {
        if (body[1] !== 0) {
          failures.connackRefused++;
          socket.destroy();
          return;
        }
        connack.push(performance.now() - t0);
        stage = 1;
        socket.write(subscribePacket([`/devices/${s.c.deviceId}/command`, `/devices/${s.c.deviceId}/kv`]));
      } else if (type === 9 && stage === 1) {
        if (body.subarray(2).includes(0x80)) failures.subscribeRefused++;
        stage = 2;
        s.up = true;
        s.tries = 0;
        upCount++;
        settle();
        checkDone();
      } else if (type === 3) {
        const at = 2 + ((body[0] << 8) | body[1]);
        if (body.subarray(2, at).toString('latin1').endsWith('/command')) commands++;
        // PUBLISH at QoS 1 (a KV reload, an outbox command...): PUBACK its packet id, after the topic
        if (((first >> 1) & 3) === 1) socket.write(Buffer.from([0x40, 2, body[at], body[at + 1]]));
      }
    }
  });
}

let pinger: NodeJS.Timeout | undefined;

function start(j: FleetJob): void {
  job = j;
  reconnect = j.reconnect;
  states = j.clients.map((c) => ({ c, up: false }));
  // a job's CONNACK times are its own (the fleet bench's warm-up runs a job before the storm)
  connack.length = 0;
  waitingFor = { start: performance.now() };
  queue.push(...states);
  pump();
  checkDone(); // no clients at all
  // keep-alive: a PINGREQ to every open connection within each keep-alive period (one timer, whatever the jobs)
  clearInterval(pinger);
  pinger = setInterval(
    () => {
      for (const s of states) if (s.up) s.socket?.write(Buffer.from([0xc0, 0]));
    },
    (j.keepalive * 1000) / 2,
  ).unref();
}

process.on(
  'message',
  (m: FleetJob | { type: 'drop' | 'reconnect' | 'close' } | { type: 'status'; reset?: boolean } | { type: 'inflight'; inflight: number }) => {
    switch (m.type) {
      case 'inflight':
        job!.inflight = m.inflight;
        pump();
        send({ type: 'inflight' });
        break;
      case 'connect':
        start(m);
        break;
      case 'drop':
        reconnect = false;
        queue.length = 0;
        for (const s of states) s.socket?.destroy();
        send({ type: 'dropped' });
        break;
      case 'reconnect':
        reconnect = true;
        for (const s of states) if (!s.up && !s.socket) queue.push(s);
        pump();
        send({ type: 'reconnecting' });
        break;
      case 'status':
        send({ type: 'status', up: upCount, lost, commands, failures: { ...failures } });
        if (m.reset) for (const k of Object.keys(failures) as (keyof Failures)[]) failures[k] = 0;
        break;
      case 'close':
        for (const s of states) s.socket?.destroy();
        process.exit(0);
    }
  },
);
// the bench went away (a crash, Ctrl-C): no orphaned connections
process.on('disconnect', () => process.exit(0));
send({ type: 'up' });
