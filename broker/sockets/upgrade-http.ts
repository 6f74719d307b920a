// The HTTP side of WebSocket upgrades that are not MQTT: the credential (header, or `authToken`
// in the query for browsers, docs/api.md#credentials, or a single-use `ticket`, docs/api.md#stream-tickets), refusals answered as the REST API would (same reasons
// and the statuses of the operation, src/protocol/error-status.ts), and the access log line (docs/operations.md#logs:
// the path without its query, so the token is never recorded).
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { deviceCaller, resolveCaller, tokenFromHeader } from '../../src/domain/auth/resolve.js';
import { deviceForCertificate, refuseKeyIfCertificateRequired } from '../../src/domain/certificate/index.js';
import { redeemStreamTicket } from '../../src/domain/auth/ticket.js';
import { callerProjectId, type Caller } from '../../src/domain/caller.js';
import { AppError, isAppError } from '../../src/domain/errors.js';
import { idOrNotFound } from '../../src/domain/id.js';
import { fitStatus, statusOf } from '../../src/protocol/error-status.js';
import type { BrokerContext } from '../context.js';
import { delay } from '../limits/auth-backoff.js';
import { presentedCertificate } from '../mqtt/client-certificate.js';

export interface UpgradeRequest {
  req: IncomingMessage;
  socket: Duplex;
  head: Buffer;
  url: URL;
  ip: string | undefined;
  started: bigint;
}

/** `ipOf`: the client address behind a trusted proxy (BrokerDeps.clientIpOf); else the socket's peer */
export function upgradeRequest(req: IncomingMessage, socket: Duplex, head: Buffer, ipOf?: (req: IncomingMessage) => string | undefined): UpgradeRequest {
  const ip = ipOf ? ipOf(req) : req.socket.remoteAddress;
  return { req, socket, head, url: new URL(req.url ?? '/', 'http://localhost'), ip, started: process.hrtime.bigint() };
}

/** the header's credential, else `authToken`, else a `ticket` (used up here, whatever the upgrade's outcome) */
export async function callerOf(ctx: BrokerContext, u: UpgradeRequest): Promise<Caller> {
  const token = tokenOf(u);
  const ticket = token ? undefined : u.url.searchParams.get('ticket') || undefined;
  if (ticket) return redeemStreamTicket({ deps: ctx.deps, input: { ticket, ip: u.ip } });
  return resolveCaller({ deps: ctx.deps, input: { token, ip: u.ip } });
}

const tokenOf = (u: UpgradeRequest) => tokenFromHeader(u.req.headers.authorization) ?? (u.url.searchParams.get('authToken') || undefined);

/**
 * The caller of a device channel (command and KV WebSockets, docs/tls.md#client-certificates): over WSS with
 * client certificates on, a request without a token or ticket signs in with the certificate it
 * presented, which must be the path's device's (`certificate`: its fingerprint when registered, so revoking it closes the socket); a
 * device key is refused for a class that requires certificates. Refusals are 403.
 */
export async function deviceChannelCallerOf(ctx: BrokerContext, u: UpgradeRequest, deviceId: number): Promise<{ caller: Caller; certificate?: string }> {
  const cert = !tokenOf(u) && !u.url.searchParams.get('ticket') ? presentedCertificate(ctx, u.req.socket) : undefined;
  if (cert) {
    const { device, fingerprint } = await deviceForCertificate({ deps: ctx.deps, input: { cert, deviceId } });
    return { caller: deviceCaller(device, u.ip), certificate: fingerprint };
  }
  const caller = await callerOf(ctx, u);
  if (caller.type === 'device') {
    const device = await ctx.deps.store.devices.get(caller.deviceId);
    if (device) await refuseKeyIfCertificateRequired(ctx.deps, device);
  }
  return { caller };
}

/** a path segment that must be a device id (src/domain/id.ts); anything else is that kind of "not found" */
export const idOf = (text: string, reason: 'DEVICE_NOT_FOUND'): number => idOrNotFound(text, reason, 'deviceId');

/** answers the refusal on the raw socket, as an HTTP response with the API's error body */
export function refuseUpgrade(ctx: BrokerContext, u: UpgradeRequest, err: unknown, statuses: readonly number[] | undefined, caller?: Caller): void {
  const e = isAppError(err) ? err : new AppError('INTERNAL_ERROR');
  if (!isAppError(err)) ctx.deps.logger.error({ err, path: u.url.pathname }, 'WebSocket upgrade failed');
  const status = fitStatus(statusOf[e.reason], statuses);
  const body = JSON.stringify(e.data ? { reason: e.reason, data: e.data } : { reason: e.reason });
  recordAccess(ctx, u, status, caller);
  if (u.socket.destroyed) return;
  u.socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Access-Control-Allow-Origin: *\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * refuseUpgrade for the device channels: an unknown key (a guess) is answered after the wait of
 * auth-backoff.ts for its address (docs/devices.md#mqtt, as for MQTT CONNECT)
 */
export async function refuseGuess(
  ctx: BrokerContext,
  u: UpgradeRequest,
  err: unknown,
  statuses: readonly number[] | undefined,
  caller?: Caller,
): Promise<void> {
  if (isAppError(err) && err.reason === 'INVALID_TOKEN') await delay(ctx.authBackoff.failed(u.ip));
  refuseUpgrade(ctx, u, err, statuses, caller);
}

export function recordAccess(ctx: BrokerContext, u: UpgradeRequest, statusCode: number, caller: Caller | undefined): void {
  const projectId = caller ? callerProjectId(caller) : undefined;
  if (projectId === undefined || !ctx.deps.accessLog) return;
  ctx.deps.accessLog.record({
    projectId,
    clientIp: u.ip ?? '',
    latency: Number(process.hrtime.bigint() - u.started),
    method: u.req.method ?? 'GET',
    path: u.url.pathname,
    statusCode,
    timestamp: ctx.deps.clock.now().toISOString(),
  });
}
