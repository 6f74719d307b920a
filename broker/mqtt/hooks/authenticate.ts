// Aedes authenticate (docs/devices.md#mqtt): username = device id in decimal, password = the device API key;
// or, over TLS with client certificates on, a client certificate (docs/tls.md#client-certificates: the user name is
// then the device id or empty, the password may be empty; a certificate presented decides alone).
// Bad credentials → CONNACK 4; a device that no longer exists → CONNACK 5; a device already at
// its connection cap → CONNACK 3 (try later). Repeated bad credentials from one address wait
// longer and longer for their CONNACK (auth-backoff.ts). A clean-session-0 connection is a
// persistent session, bounded per device (persistent-sessions.ts). Once accepted, the connection gets its session
// (the device resolved once, here) and counts for presence until its socket closes, whatever
// closes it.
import type { AuthenticateError, Client } from 'aedes';
import type { Socket } from 'node:net';
import { AppError } from '../../../src/domain/errors.js';
import { parseId } from '../../../src/domain/id.js';
import { hashToken } from '../../../src/domain/auth/tokens.js';
import type { BrokerContext } from '../../context.js';
import { connackError } from '../connack.js';
import { brokerLog } from '../../general-log.js';
import { DeviceSession, sessionOf, type WithSession } from '../../session.js';
import type { WithIdRejected } from './pre-connect.js';
import { delay } from '../../limits/auth-backoff.js';
import { deviceForCertificate, refuseKeySignIn } from '../../../src/domain/certificate/index.js';
import type { DeviceIdentity } from '../../../src/ports/store.js';
import { presentedCertificate } from '../client-certificate.js';

type Done = (err: AuthenticateError | null, ok: boolean | null) => void;

/** every session starts with this list (granted filters are added by replacing it) */
const NONE_GRANTED: readonly string[] = [];

export function authenticate(ctx: BrokerContext) {
  // one listener shared by every connection (Aedes links the socket to its client as
  // `conn.client`): no closure per connection
  const onSocketClose = function (this: { client?: WithSession }): void {
    const s = this.client?.hearth;
    if (!s) return;
    if (s.persistentId) ctx.sessions.closed(s, s.persistentId);
    void ctx.connections.detach(s);
  };
  // one string per device class name on this node, not one per session: every row read makes its
  // own copy of the name (about 30 bytes a device at fleet size, issue #25); as many entries as
  // the classes of the devices that signed in here
  const classNames = new Map<string, string>();
  const className = (name: string): string => {
    const known = classNames.get(name);
    if (known !== undefined) return known;
    classNames.set(name, name);
    return name;
  };
  return (client: Client, username: string | undefined, password: Buffer | undefined, done: Done): void => {
    if ((client as Client & WithIdRejected).hearthIdRejected) {
      // [MQTT-3.1.3-8] an empty client id needs clean session 1: CONNACK 2, identifier rejected
      refused(ctx, client, username, new AppError('INVALID_PARAMETERS', { message: 'an empty client id needs clean session 1' }));
      return done(Object.assign(new Error('identifier rejected'), { returnCode: 2 }) as AuthenticateError, null);
    }
    keepProtocolOnly(client);
    const c: Connecting = { client, username, password, onSocketClose, className, done };
    runConnectSteps(ctx, c, 0);
  };
}

/**
 * mqtt-packet keeps the CONNECT packet on the client's parser for the connection's life (its
 * settings), and reads only its protocol version and bridge mode from it afterwards: with it
 * stayed the user name, the will and the password, the device key as a view of the socket's read
 * buffer (about 450 bytes a device at fleet size, issue #25, and a credential left in memory for
 * hours). Aedes has its own reference to the packet for the CONNECT and reads the parser's never.
 */
function keepProtocolOnly(client: Client): void {
  const parser = (client as unknown as { _parser?: { settings?: { protocolVersion?: number; bridgeMode?: boolean } } })._parser;
  const s = parser?.settings;
  if (s) parser.settings = { protocolVersion: s.protocolVersion, bridgeMode: s.bridgeMode };
}

/** what one CONNECT carries through its steps */
interface Connecting {
  client: Client;
  username: string | undefined;
  password: Buffer | undefined;
  onSocketClose: () => void;
  /** the node's one copy of a device class name */
  className: (name: string) => string;
  /** set by checkCredentials */
  signIn?: SignIn;
  /** set by openSession */
  session?: DeviceSession;
  /** Aedes's callback: called once, when the steps are done or one refused */
  done: Done;
}

/** one step of a CONNECT; a throw refuses it with that error's CONNACK */
type ConnectStep = (ctx: BrokerContext, c: Connecting) => Promise<void> | void;

/** the CONNECT's steps after preConnect, in order (as Aedes runs its own connectActions) */
export const CONNECT_STEPS: readonly ConnectStep[] = [checkCredentials, checkConnectionCap, openSession, admitPersistentSession, attachSession];

/**
 * the steps from `from` on; a step that answers at once goes straight on to the next (issue #25:
 * an await per step was a promise and a resumption per step of every CONNECT of a storm, about
 * 1 KB a connect; only the steps that wait for the store, the presence and the commit wait)
 */
function runConnectSteps(ctx: BrokerContext, c: Connecting, from: number): void {
  for (let i = from; i < CONNECT_STEPS.length; i++) {
    let pending: Promise<void> | void;
    try {
      pending = CONNECT_STEPS[i](ctx, c);
    } catch (err) {
      return refuse(ctx, c, err);
    }
    if (pending) {
      pending.then(
        () => runConnectSteps(ctx, c, i + 1),
        (err) => refuse(ctx, c, err),
      );
      return;
    }
  }
  c.done(null, true);
}

/** the CONNECT is refused with err's CONNACK; bad credentials wait longer and longer (auth-backoff.ts) */
function refuse(ctx: BrokerContext, c: Connecting, err: unknown): void {
  refused(ctx, c.client, c.username, err);
  const wait = isBadCredential(err) ? ctx.authBackoff.failed(addressOf(ctx, c.client)) : 0;
  void delay(wait).then(() => c.done(connackError(err) as AuthenticateError, null));
}

/** a client certificate, or the device id and key: the device signing in */
function checkCredentials(ctx: BrokerContext, c: Connecting): Promise<void> {
  return credentialsOf(ctx, c.client, c.username, c.password).then((signIn) => {
    c.signIn = signIn;
  });
}

/** the device signing in, and the certificate it signed in with, if any */
interface SignIn {
  device: DeviceIdentity;
  fingerprint?: string;
}

async function credentialsOf(ctx: BrokerContext, client: Client, username: string | undefined, password: Buffer | undefined): Promise<SignIn> {
  const cert = presentedCertificate(ctx, client.req?.socket ?? client.conn);
  if (cert) {
    const named = username ? parseId(username) : undefined;
    if (username && named === undefined) throw new AppError('INVALID_PARAMETERS', { message: 'user name must be the device id' });
    return deviceForCertificate({ deps: ctx.deps, input: { cert, deviceId: named } });
  }
  if (!username || !password?.length) throw new AppError('AUTHORIZATION_REQUIRED');
  const deviceId = parseId(username);
  if (deviceId === undefined) throw new AppError('INVALID_PARAMETERS', { message: 'user name must be the device id' });
  const { store } = ctx.deps;
  // the four fields the connection keeps and the class's certificateRequired, one lookup in the
  // records (ports/store/devices.ts)
  const device = await store.devices.signInByKeyHash(hashToken(password.toString('utf8')));
  if (device && device.id === deviceId) {
    refuseKeySignIn(device);
    return { device };
  }
  // a key of another device, or a wrong key, are bad credentials; a device that is gone is not
  // authorized at all (deleted, or removed from its project)
  if (!device && !(await store.devices.get(deviceId))) throw new AppError('DEVICE_NOT_FOUND', { deviceId });
  throw new AppError('INVALID_TOKEN');
}

/** the device's live connections stay under options.connectionsPerDevice */
function checkConnectionCap(ctx: BrokerContext, c: Connecting): Promise<void> | void {
  // the local presence answers at once: no promise, no turn of the microtask queue (issue #25)
  const count = ctx.deps.presence.count(c.signIn!.device.id);
  if (typeof count === 'number') return underCap(ctx, c, count);
  return count.then((n) => underCap(ctx, c, n));
}

function underCap(ctx: BrokerContext, { client, signIn }: Connecting, count: number): void {
  const max = ctx.deps.options.connectionsPerDevice;
  const { device } = signIn!;
  // [MQTT-3.1.4-2] a connection with the same client id replaces the old one: it does not count.
  // Looked for only at the cap: a lookup of a client id never seen before in Aedes's table of
  // thousands of clients was a visible share of a connect storm's CPU profile (issue #25)
  if (count >= max) {
    const old = (ctx.aedes as unknown as { clients: Record<string, Client | undefined> }).clients[client.id];
    const replacing = old && sessionOf(old)?.device.id === device.id ? 1 : 0;
    if (count - replacing >= max) throw new AppError('LIMIT_EXCEEDED', { deviceId: device.id, connections: max });
  }
  if (client.closed) throw new AppError('SERVICE_UNAVAILABLE'); // gone while we looked
}

/** the connection's session: the device resolved once, here */
function openSession(ctx: BrokerContext, c: Connecting): void {
  const { device, fingerprint } = c.signIn!;
  const session = new DeviceSession(
    { id: device.id, projectId: device.projectId, deviceClass: c.className(device.deviceClass), homeId: device.homeId },
    'mqtt',
    addressOf(ctx, c.client),
    c.client,
    ctx.connectionPrefix,
  );
  session.granted = NONE_GRANTED;
  session.certificate = fingerprint;
  c.session = session;
}

/** docs/devices.md#mqtt: persistent sessions per device are bounded (the oldest offline one may go) */
function admitPersistentSession(ctx: BrokerContext, { client, session }: Connecting): Promise<void> | void {
  const s = session!;
  if (client.clean === false) {
    return ctx.sessions.admit(s, client.id).then(() => {
      s.persistentId = client.id;
      stillOpen(ctx, client, s);
    });
  }
  ctx.sessions.forget(s.device.id, client.id);
  stillOpen(ctx, client, s);
}

/** a client gone while its CONNECT was checked is refused (its persistent session goes offline) */
function stillOpen(ctx: BrokerContext, client: Client, s: DeviceSession): void {
  if (!client.closed) return;
  if (s.persistentId) ctx.sessions.closed(s, s.persistentId);
  throw new AppError('SERVICE_UNAVAILABLE');
}

/** the client carries its session and counts for presence until its socket closes, whatever closes it */
function attachSession(ctx: BrokerContext, { client, session, onSocketClose }: Connecting): Promise<void> {
  (client as Client & WithSession).hearth = session;
  if (!client.req) forgetPeerAddress(client.conn);
  // the socket closing is the one signal every kind of disconnect gives
  client.conn.on('close', onSocketClose);
  return ctx.connections.attach(session!);
}

/**
 * Node keeps a socket's peer address once it is read (`_peername`, an object of 56 bytes) for the
 * connection's life: the listener's gate read it for the per-address limit, and this CONNECT for
 * the session, which has its own copy (`ip`). Nothing reads it again while the device stays
 * connected, so it goes (memory per device at fleet size, issue #25; scripts/bench/fleet-heap.ts
 * counts it). Read later, Node asks the kernel again. Over TLS the TCP socket under it
 * (`_parent`, the one the gate read) has its own.
 */
function forgetPeerAddress(conn: unknown): void {
  for (let s = conn as { _peername?: unknown; _parent?: unknown } | undefined; s; s = s._parent as typeof s) if (s._peername) s._peername = undefined;
}

/** a refusal that a guesser gets: slowed down (not a full device, not our own failure) */
function isBadCredential(err: unknown): boolean {
  if (!(err instanceof AppError)) return false;
  return err.reason === 'INVALID_TOKEN' || err.reason === 'AUTHORIZATION_REQUIRED' || err.reason === 'INVALID_PARAMETERS' || err.reason === 'DEVICE_NOT_FOUND';
}

function refused(ctx: BrokerContext, client: Client, username: string | undefined, err: unknown): void {
  const reason = err instanceof AppError ? err.reason : 'SERVICE_UNAVAILABLE';
  ctx.metrics.refused('mqtt', reason);
  if (!(err instanceof AppError)) ctx.deps.logger.error({ err }, 'MQTT authentication failed');
  const ip = addressOf(ctx, client) ?? 'unknown address';
  const deviceId = parseId(username);
  const why = err instanceof AppError && typeof err.data?.message === 'string' ? ` (${err.data.message})` : '';
  const text = `MQTT connection refused for device ${username === undefined ? '(no user name)' : JSON.stringify(username.slice(0, 40))} from ${ip}: ${reason}${why}`;
  if (deviceId === undefined || !ctx.throttle.allow(`refused:${deviceId}`)) {
    ctx.deps.logger.debug(text);
    return;
  }
  // filed under the project of the device named, when it exists
  void ctx.deps.store.devices.get(deviceId).then(
    (d) => brokerLog(ctx, d?.projectId ?? null, undefined, 'warn', text),
    () => undefined,
  );
}

/**
 * The device's address: the TCP peer, or for MQTT over WebSocket the client of the HTTP request
 * (behind a trusted proxy, the address its X-Forwarded-For names: src/http/client-ip.ts).
 */
function addressOf(ctx: BrokerContext, client: Client): string | undefined {
  const req = client.req;
  if (req) return ctx.deps.clientIpOf ? ctx.deps.clientIpOf(req) : req.socket.remoteAddress;
  return (client.conn as Socket).remoteAddress;
}
