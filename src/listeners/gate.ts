// The door every listener shares (docs/operations.md#connection-limits): a socket that has not finished its TLS
// handshake and sent its first HTTP request head or MQTT CONNECT within limits.connectTimeoutMs
// is closed (an MQTT socket stops the clock when its CONNECT arrives: what the broker then takes
// to answer, a storm's queue or the delay of a refusal, is not the client's delay, and cutting it
// turned a 15,000-device reconnect storm into a loop of connects closed and retried, issue #25),
// and one address may hold at most
// limits.unauthenticatedSocketsPerAddress such sockets at a time (more are closed on accept), so a
// flood of half-open sockets from one address cannot use up the process's files for everyone.
// A trusted proxy (HEARTH_TRUSTED_PROXIES) carries many clients: its address is not capped, the
// deadline still applies.
// Admission control for connect storms: a throttled listener (MQTT, MQTTS) passes at most
// limits.connectRatePerSecond new connections a second on to the broker; past the rate a
// connection waits, unread, in arrival order, with its connect deadline paused (it starts again,
// whole, when the connection is passed on), so a reconnect storm becomes a queue, not refusals.
// And it keeps at most limits.connectsInFlight connections passed on that have not had their
// CONNACK yet (nor closed): the rate is fixed, the node's pace is not (four cluster brokers on a
// loaded 2-core machine answered 40 to 270 CONNECTs a second together, a quiet embedded node
// 1,000), so past what the node answers the queue stays here, unread, instead of growing inside
// the broker.
import type { Server as NetServer, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';

export interface GateOptions {
  connectTimeoutMs: number;
  unauthenticatedSocketsPerAddress: number;
  /** true for an address whose sockets are not capped (a trusted proxy) */
  uncapped?: (address: string) => boolean;
  /** new connections a throttled listener passes on per second (0: no limit) */
  connectRatePerSecond: number;
  /** connections a throttled listener has passed on and that have not had their CONNACK nor closed (0: no limit) */
  connectsInFlight: number;
  logger: Logger;
}

interface Pending {
  raw: Socket;
  address: string;
  timer: NodeJS.Timeout;
  /** (re)starts the whole connect deadline */
  arm(): void;
  /** the socket's close listener, taken off once the socket is signed in */
  onClose(): void;
  /** set when a throttle passed it on: called once, at its CONNACK, close or deadline */
  passedOn?: () => void;
}

/** one throttled listener's admission figures (the /metrics hearth_listener_* series) */
export interface Admission {
  listener: string;
  /** connections passed on to the handler */
  passed: number;
  /** connections that had to wait for the rate */
  held: number;
  /** connections waiting now */
  waiting: number;
  /** connections passed on that have had no CONNACK yet, nor closed */
  inFlight: number;
}

export interface Gate {
  /**
   * watches every socket the server accepts (before TLS wraps it). `startedGraceMs`: a socket that
   * has sent bytes when its deadline passes gets this much longer once, so that the server's own
   * timeout can answer it (HTTP: Node's headersTimeout answers 408, docs/api.md#limits)
   */
  watch(server: NetServer, listener: string, opts?: { startedGraceMs?: number }): void;
  /** the socket (raw, or the TLS socket over it) is past its first request or CONNACK: no deadline, not counted */
  admit(socket: Duplex): void;
  /**
   * the socket's MQTT CONNECT arrived: its deadline stops (the client did its part; the answer is
   * the broker's to give); it still counts as not signed in until admit() or its close
   */
  received(socket: Duplex): void;
  /** the socket waits, unread, for the node to serve MQTT (start-up): its deadline waits too */
  pause(socket: Duplex): void;
  /** ...and starts again, whole, when it is handed over */
  resume(socket: Duplex): void;
  /**
   * the listener's connection handler behind the rate of limits.connectRatePerSecond (one token
   * bucket per listener, one second's worth deep) and the cap of limits.connectsInFlight
   */
  throttle(listener: string, handler: (socket: Socket) => void): (socket: Socket) => void;
  /** per throttled listener */
  admission(): Admission[];
  /** closes every connection still waiting for the rate (the listeners are closing) */
  dropWaiting(): void;
  /** sockets waiting now (tests, metrics) */
  readonly pending: number;
}

/**
 * The TCP connection a socket runs on: the raw socket the gate watched. A TLS socket that a
 * tls.Server made over it names it as its `_parent` (Node's own link; a WebSocket's stream has
 * neither and matches nothing, its upgrade admitted it). Keyed by the object, not by its
 * addresses: reading `localPort` had Node fetch and keep the socket's own address (`_sockname`)
 * for the connection's life, about 100 bytes a device at fleet size (issue #25), and built a
 * string three times a connect.
 */
const keyOf = (s: Duplex): Duplex => (s as Duplex & { _parent?: Duplex })._parent ?? s;

export function createGate(opts: GateOptions): Gate {
  const pending = new Map<Duplex, Pending>();
  const perAddress = new Map<string, number>();
  let refusedLogged = 0;
  const throttles: { stats: Admission; drop(): void }[] = [];

  const release = (key: Duplex, p: Pending) => {
    if (pending.get(key) !== p) return;
    pending.delete(key);
    clearTimeout(p.timer);
    // a signed-in socket lives on for hours: it must not keep this entry (its closures and
    // timer) alive through its close listener (memory per device at fleet size)
    p.raw.off('close', p.onClose);
    compactListeners(p.raw, 'close');
    if (p.passedOn) {
      const done = p.passedOn;
      p.passedOn = undefined;
      done();
    }
    const n = (perAddress.get(p.address) ?? 1) - 1;
    if (n <= 0) perAddress.delete(p.address);
    else perAddress.set(p.address, n);
  };

  /** the deadline stops (received, or held unread by the node) */
  const pause = (socket: Duplex) => {
    if (pending.size === 0) return;
    const p = pending.get(keyOf(socket));
    if (p) clearTimeout(p.timer);
  };

  return {
    watch(server, listener, watchOpts) {
      const grace = watchOpts?.startedGraceMs ?? 0;
      // before TLS wraps the socket (tls.Server's own 'connection' listener): the deadline
      // covers the handshake too
      server.prependListener('connection', (raw: Socket) => {
        const address = raw.remoteAddress ?? 'unknown';
        const capped = !opts.uncapped?.(address);
        const count = perAddress.get(address) ?? 0;
        if (capped && count >= opts.unauthenticatedSocketsPerAddress) {
          // logged at most once a minute: the flood itself must not flood the log
          const now = Date.now();
          if (now - refusedLogged > 60_000) {
            refusedLogged = now;
            opts.logger.warn(
              `${listener}: ${address} already holds ${count} sockets that have not signed in (limits.unauthenticatedSocketsPerAddress); closing more until they finish or time out`,
            );
          }
          raw.destroy();
          return;
        }
        const key: Duplex = raw;
        let graced = grace === 0;
        const expire = () => {
          if (!graced && raw.bytesRead > 0) {
            graced = true;
            p.timer = setTimeout(expire, grace);
            p.timer.unref();
            return;
          }
          release(key, p);
          raw.destroy();
        };
        const p: Pending = {
          raw,
          address,
          timer: undefined as unknown as NodeJS.Timeout,
          arm() {
            clearTimeout(p.timer);
            p.timer = setTimeout(expire, opts.connectTimeoutMs);
            p.timer.unref();
          },
          onClose: () => release(key, p),
        };
        p.arm();
        pending.set(key, p);
        perAddress.set(address, count + 1);
        raw.once('close', p.onClose);
      });
    },
    admit(socket) {
      // every request on a connection says it is signed in; only its first can release a
      // deadline (a connection is watched once, when it opens)
      if (pending.size === 0) return;
      const key = keyOf(socket);
      const p = pending.get(key);
      if (p) release(key, p);
    },
    received: (socket) => pause(socket),
    pause: (socket) => pause(socket),
    resume(socket) {
      pending.get(keyOf(socket))?.arm();
    },
    throttle(listener, handler) {
      const rate = opts.connectRatePerSecond;
      const cap = opts.connectsInFlight;
      const stats: Admission = { listener, passed: 0, held: 0, waiting: 0, inFlight: 0 };
      // a held socket, and the same socket's deadline entry (paused while it waits)
      const queue: (Socket | undefined)[] = [];
      let head = 0;
      let tokens = rate;
      let last = performance.now();
      let timer: NodeJS.Timeout | undefined;
      /** a drain is due once a connection in flight finishes (the cap, not the rate, held the queue) */
      let capped = false;
      const refill = () => {
        if (!rate) return;
        const now = performance.now();
        tokens = Math.min(rate, tokens + ((now - last) * rate) / 1000);
        last = now;
      };
      const open = () => (!rate || tokens >= 1) && (!cap || stats.inFlight < cap);
      const finished = () => {
        stats.inFlight--;
        // not from inside the socket's close or CONNACK: on the next turn
        if (capped && !timer) ((capped = false), (timer = setTimeout(drain, 0)));
      };
      const pass = (socket: Socket) => {
        tokens -= 1;
        stats.passed++;
        const p = cap ? pending.get(keyOf(socket)) : undefined;
        if (p) ((p.passedOn = finished), stats.inFlight++);
        handler(socket);
      };
      const drain = () => {
        timer = undefined;
        refill();
        while (head < queue.length && open()) {
          const socket = queue[head]!;
          queue[head++] = undefined;
          // closed while it waited (the client gave up): no token spent
          if (socket.destroyed) continue;
          socket.off('error', ignore);
          pending.get(keyOf(socket))?.arm();
          pass(socket);
        }
        if (head === queue.length) queue.length = head = 0;
        else if (head > 1024) (queue.splice(0, head), (head = 0));
        stats.waiting = queue.length - head;
        if (stats.waiting) schedule();
      };
      /** the next drain: when the next token is due, or when a connection in flight finishes */
      const schedule = () => {
        if (rate && tokens < 1) timer = setTimeout(drain, Math.max(1, Math.ceil(((1 - tokens) * 1000) / rate)));
        else capped = true;
      };
      throttles.push({
        stats,
        drop() {
          clearTimeout(timer);
          timer = undefined;
          capped = false;
          for (let i = head; i < queue.length; i++) queue[i]?.destroy();
          queue.length = head = stats.waiting = 0;
        },
      });
      if (!rate && !cap) return pass;
      return (socket) => {
        refill();
        if (head === queue.length && open()) return pass(socket);
        stats.held++;
        stats.waiting++;
        // the deadline is for a client that does not finish its CONNECT, not for our queue
        clearTimeout(pending.get(keyOf(socket))?.timer);
        // a reset while it waits must not go unhandled; the handler listens once passed on
        socket.on('error', ignore);
        queue.push(socket);
        if (!timer && !capped) schedule();
      };
    },
    admission: () => throttles.map((t) => ({ ...t.stats })),
    dropWaiting() {
      for (const t of throttles) t.drop();
    },
    get pending() {
      return pending.size;
    },
  };
}

function ignore(): void {}

/**
 * Once this gate's close listener comes off a signed-in socket, the two left are made a list with
 * no spare room. An MQTT socket holds three at once (this gate's, Aedes's and the broker's), and
 * a listener list that grew to three keeps room for nineteen for the socket's life: 170 bytes a
 * device at fleet size (issue #25). The last one comes off (the first stays, alone) and goes back
 * on: an exact list of two, same listeners, same order. (Not removeAllListeners: deleting the
 * event's entry turns the socket's whole event table into a dictionary, 450 bytes.)
 */
function compactListeners(socket: Socket, event: 'close'): void {
  const listeners = socket.rawListeners(event);
  if (listeners.length !== 2) return;
  const last = listeners[1] as () => void;
  socket.off(event, last);
  socket.on(event, last);
}
