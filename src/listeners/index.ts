// Every port Hearth listens on, bound before anything else happens at start (a port that is
// taken stops start-up before the first-start bootstrap writes project 1 and its admin key), and
// handed to the roles once they exist (serve()). Until then an HTTP request is answered 503 and
// an MQTT connection waits, unread, for the broker.
//   HTTP   HEARTH_HTTP_PORT  (off with HEARTH_HTTP_ENABLED=false)  REST API and WebSocket paths
//   HTTPS  HEARTH_HTTPS_PORT (with TLS files)                       the same, over TLS
//   MQTT   HEARTH_MQTT_PORT  (broker role; HEARTH_MQTT_ENABLED)     MQTT over TCP
//   MQTTS  HEARTH_MQTTS_PORT (broker role, with TLS files)          MQTT over TLS
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type RequestListener,
  type Server as HttpServer,
  type ServerOptions,
  ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type Server as NetServer, type Socket } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { ConfigError } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { answerClientError } from '../http/client-error.js';
import type { TrustedProxies } from '../http/client-ip.js';
import { EdgeResponse } from '../http/edge/response.js';
import { createTlsReloader, readTls, tlsFilesOf, warnIfExpiring, type TlsReloader } from './tls.js';
import { listen, serveAsRequest } from './net.js';
import { createGate, type Admission } from './gate.js';

export type { Admission } from './gate.js';

export { listen } from './net.js';

export interface Ports {
  /** 0: not listening */
  http: number;
  https: number;
  mqtt: number;
  mqtts: number;
}

export interface Roles {
  /** the API (Hono's request listener) */
  request: RequestListener;
  /** WebSocket upgrades: true when taken, false to serve the request as plain HTTP */
  upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => boolean;
  /** an MQTT connection (plain or TLS) */
  mqtt?: (socket: Socket) => void;
}

export interface Listeners {
  ports: Ports;
  /** hands what arrived so far, and all that follows, to the roles */
  serve(roles: Roles): void;
  /** SIGHUP: rereads the TLS files (false: they failed, the old certificate stays); undefined without TLS */
  tls?: TlsReloader;
  /** the addresses served, one line each, for the start-up log */
  describe(apiRole: boolean): string[];
  /** an MQTT connection got its CONNACK: its socket is no longer under the connect deadline (src/listeners/gate.ts) */
  admit(socket: Duplex): void;
  /** an MQTT connection's CONNECT arrived: its connect deadline stops, it still counts as not signed in (src/listeners/gate.ts) */
  received(socket: Duplex): void;
  /** docs/operations.md#connect-storms: each MQTT listener's admission figures (limits.connectRatePerSecond, limits.connectsInFlight) */
  admission(): Admission[];
  /** stops accepting MQTT connections (before the broker drains its own) */
  stopMqtt(): void;
  /** stops everything and drops the HTTP connections still open */
  close(): Promise<void>;
}

/** checks that the settings leave something to serve; throws ConfigError */
export function checkListeners(config: Config): void {
  const tls = tlsFilesOf(config);
  if (config.tls.clientCertificates !== 'off' && !tls) {
    throw new ConfigError(
      'HEARTH_TLS_CLIENT_CERTIFICATES: client certificates need TLS; set HEARTH_TLS_CERT_FILE and HEARTH_TLS_KEY_FILE too, or leave it off',
    );
  }
  if (!config.http.enabled && !tls) {
    throw new ConfigError(
      'HEARTH_HTTP_ENABLED: false turns off the only HTTP listener; set HEARTH_TLS_CERT_FILE and HEARTH_TLS_KEY_FILE to serve HTTPS instead, or leave HTTP on',
    );
  }
}

/** 503 until the API exists: /healthz is not up yet, and nothing is half-built behind it */
const STARTING = JSON.stringify({ reason: 'SERVICE_UNAVAILABLE', data: { starting: true } });
const starting: RequestListener = (_req, res) => {
  res.writeHead(503, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(STARTING), 'retry-after': '1', connection: 'close' });
  res.end(STARTING);
};

/**
 * Binds every listener the configuration asks for, or none: when one port fails the others are
 * closed again and the error (a ConfigError naming the variable) is thrown.
 */
export async function bindListeners(
  config: Config,
  opts: { broker: boolean; logger: Logger; trustedProxies?: Pick<TrustedProxies, 'trusts'> },
): Promise<Listeners> {
  checkListeners(config);
  const { logger } = opts;
  const files = tlsFilesOf(config);
  const material = files ? readTls(files) : undefined;
  if (material) warnIfExpiring(material, logger);
  const limits = config.limits;
  // docs/api.md#limits: a connection (WebSocket upgrades included) must send its request head within the
  // connect timeout; Node's default is 60 s, checked every 30 s. Bodies (log uploads) are not cut
  // by this. A TLS handshake gets the same time. EdgeResponse writes the headers every answer
  // carries (src/http/edge/cors.ts).
  const httpOptions: ServerOptions = {
    ServerResponse: EdgeResponse as typeof ServerResponse,
    headersTimeout: limits.connectTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, limits.connectTimeoutMs),
  };
  // docs/tls.md#client-certificates: `optional` asks every TLS client for a certificate and lets it in without
  // one (a key still works); the broker decides what a certificate presented is worth
  const clientCerts = config.tls.clientCertificates === 'optional' ? { requestCert: true, rejectUnauthorized: false } : {};
  const tlsServerOptions = material ? { ...material.options, ...clientCerts, handshakeTimeout: limits.connectTimeoutMs } : undefined;

  const httpServers: HttpServer[] = [];
  const mqttServers: NetServer[] = [];
  const tlsServers: TlsServer[] = [];
  const ports: Ports = { http: 0, https: 0, mqtt: 0, mqtts: 0 };
  // MQTT connections that arrive before the broker: held, unread (TCP buffers what they send),
  // ahead of admission control: a restart storm meets the rate once the broker serves, rather than
  // passing the rate into this hold while the node starts and then reaching the broker all at once
  let held: { socket: Socket; admit: (socket: Socket) => void }[] | undefined = [];
  let mqttHandler: ((socket: Socket) => void) | undefined;
  const toBroker = (socket: Socket) => mqttHandler!(socket);
  const onMqtt = (admit: (socket: Socket) => void) => (socket: Socket) => {
    if (!held) return admit(socket);
    socket.on('error', ignore);
    // its connect deadline waits with it: nobody reads it yet (a node slower to start than the
    // deadline closed the fleet that reconnected while it started)
    gate.pause(socket);
    held.push({ socket, admit });
  };
  // a handshake that failed or timed out: Node leaves the socket open when the server listens
  // for 'tlsClientError', so close it here (issue: stalled MQTTS handshakes were kept forever)
  const onTlsError = (err: Error, socket: Duplex & { remoteAddress?: string }) => {
    logger.debug(`TLS handshake with ${socket.remoteAddress ?? 'a client'} failed: ${err.message}`);
    socket.destroy();
  };
  // docs/operations.md#connection-limits: the connect deadline and the per-address cap of sockets not signed in yet
  const gate = createGate({
    connectTimeoutMs: limits.connectTimeoutMs,
    unauthenticatedSocketsPerAddress: limits.unauthenticatedSocketsPerAddress,
    uncapped: opts.trustedProxies && ((address) => opts.trustedProxies!.trusts(address)),
    connectRatePerSecond: limits.connectRatePerSecond,
    connectsInFlight: limits.connectsInFlight,
    logger,
  });

  // a request head that started but did not finish is Node's to answer (408, checked every
  // connectionsCheckingInterval): the gate waits that long more before it closes such a socket
  const httpGraceMs = (httpOptions.connectionsCheckingInterval ?? 1000) + 1000;

  const closeAll = async () => {
    for (const s of [...httpServers, ...mqttServers]) {
      if (!s.listening) continue;
      await new Promise<void>((r) => s.close(() => r()));
    }
  };
  try {
    if (config.http.enabled) {
      const s = createHttpServer(httpOptions, starting);
      httpServers.push(s);
      gate.watch(s, 'HTTP', { startedGraceMs: httpGraceMs });
      ports.http = await listen(s, config.http.port, config.host, 'HEARTH_HTTP_PORT');
    }
    if (tlsServerOptions) {
      const s = createHttpsServer({ ...httpOptions, ...tlsServerOptions }, starting);
      s.on('tlsClientError', onTlsError);
      httpServers.push(s);
      tlsServers.push(s);
      gate.watch(s, 'HTTPS', { startedGraceMs: httpGraceMs });
      ports.https = await listen(s, config.https.port, config.host, 'HEARTH_HTTPS_PORT');
    }
    if (opts.broker && config.mqtt.enabled) {
      const s = createTcpServer(onMqtt(gate.throttle('MQTT', toBroker)));
      mqttServers.push(s);
      gate.watch(s, 'MQTT');
      ports.mqtt = await listen(s, config.mqtt.port, config.host, 'HEARTH_MQTT_PORT', config.mqtt.backlog);
    }
    if (opts.broker && tlsServerOptions) {
      // throttled once the handshake is done, before the CONNECT is read
      const s = createTlsServer(tlsServerOptions, onMqtt(gate.throttle('MQTTS', toBroker)));
      s.on('tlsClientError', onTlsError);
      mqttServers.push(s);
      tlsServers.push(s);
      gate.watch(s, 'MQTTS');
      ports.mqtts = await listen(s, config.mqtts.port, config.host, 'HEARTH_MQTTS_PORT', config.mqtt.backlog);
    }
  } catch (e) {
    await closeAll();
    throw e;
  }
  // parser errors (431 for an oversized head, 400 for a broken request line) answer the API's
  // error body rather than Node's empty one
  for (const s of httpServers) s.on('clientError', answerClientError);
  // a request head that arrived ends the connect deadline (the API's own timeouts take over)
  for (const s of httpServers) s.prependListener('request', (req: IncomingMessage) => gate.admit(req.socket));

  const stopMqtt = () => {
    for (const s of mqttServers) if (s.listening) s.close();
    for (const h of held ?? []) h.socket.destroy();
    held = [];
    gate.dropWaiting();
  };
  return {
    ports,
    tls: files ? createTlsReloader(files, tlsServers, logger) : undefined,
    serve(roles) {
      for (const s of httpServers) {
        s.off('request', starting);
        s.on('request', roles.request);
        const upgrade = roles.upgrade;
        if (upgrade) {
          s.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
            gate.admit(socket);
            if (!upgrade(req, socket, head)) serveAsRequest(s, req, socket);
          });
        }
      }
      if (roles.mqtt) {
        mqttHandler = roles.mqtt;
        const waiting = held ?? [];
        held = undefined;
        for (const { socket, admit } of waiting) {
          socket.off('error', ignore);
          if (socket.destroyed) continue;
          gate.resume(socket);
          admit(socket);
        }
      }
    },
    describe(apiRole) {
      const host = config.host;
      const lines: string[] = [];
      const what = apiRole ? 'HTTP API' : 'HTTP (health, readiness, metrics)';
      if (ports.http) lines.push(`${what} on http://${host}:${ports.http}`);
      if (ports.https) lines.push(`${what} over TLS on https://${host}:${ports.https}`);
      if (ports.mqtt) lines.push(`MQTT on mqtt://${host}:${ports.mqtt}`);
      if (ports.mqtts) lines.push(`MQTT over TLS on mqtts://${host}:${ports.mqtts}`);
      // docs/tls.md#reloading-certificates: the pid to signal (npm start does not hand SIGHUP on)
      if (material)
        lines.push(`TLS certificate: ${material.subject}, valid until ${material.validTo.toISOString()} (kill -HUP ${process.pid} reloads ${files!.certFile})`);
      if (material && config.tls.clientCertificates === 'optional')
        lines.push(`TLS client certificates: optional (devices may sign in with one on MQTTS and WSS${files!.caFile ? `; CA ${files!.caFile}` : ''})`);
      return lines;
    },
    admit: (socket) => gate.admit(socket),
    received: (socket) => gate.received(socket),
    admission: () => gate.admission(),
    stopMqtt,
    async close() {
      stopMqtt();
      for (const s of httpServers) {
        const closed = new Promise<void>((r) => s.close(() => r()));
        s.closeAllConnections();
        await closed;
      }
    },
  };
}

function ignore(): void {}
