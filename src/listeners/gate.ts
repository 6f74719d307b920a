// The door every listener shares (docs/operations.md#connection-limits): a socket that has not finished its TLS
// handshake and its first HTTP request head or MQTT CONNECT (CONNACK accepted) within
// limits.connectTimeoutMs is closed, and one address may hold at most
// limits.unauthenticatedSocketsPerAddress such sockets at a time (more are closed on accept), so a
// flood of half-open sockets from one address cannot use up the process's files for everyone.
// A trusted proxy (HEARTH_TRUSTED_PROXIES) carries many clients: its address is not capped, the
// deadline still applies.
import type { Server as NetServer, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';

export interface GateOptions {
  connectTimeoutMs: number;
  unauthenticatedSocketsPerAddress: number;
  /** true for an address whose sockets are not capped (a trusted proxy) */
  uncapped?: (address: string) => boolean;
  logger: Logger;
}

interface Pending {
  raw: Socket;
  address: string;
  timer: NodeJS.Timeout;
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
  /** sockets waiting now (tests, metrics) */
  readonly pending: number;
}

/** the TCP connection a socket runs on: a TLS socket reports its raw socket's peer */
const keyOf = (s: { localPort?: number; remoteAddress?: string; remotePort?: number }) => `${s.localPort}|${s.remoteAddress}|${s.remotePort}`;

export function createGate(opts: GateOptions): Gate {
  const pending = new Map<string, Pending>();
  const perAddress = new Map<string, number>();
  let refusedLogged = 0;

  const release = (key: string, p: Pending) => {
    if (pending.get(key) !== p) return;
    pending.delete(key);
    clearTimeout(p.timer);
    const n = (perAddress.get(p.address) ?? 1) - 1;
    if (n <= 0) perAddress.delete(p.address);
    else perAddress.set(p.address, n);
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
        const key = keyOf(raw);
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
        const p: Pending = { raw, address, timer: setTimeout(expire, opts.connectTimeoutMs) };
        p.timer.unref();
        pending.set(key, p);
        perAddress.set(address, count + 1);
        raw.once('close', () => release(key, p));
      });
    },
    admit(socket) {
      const key = keyOf(socket as Socket);
      const p = pending.get(key);
      if (p) release(key, p);
    },
    get pending() {
      return pending.size;
    },
  };
}
