// GET /userSession/websocket?authToken=... (docs/devices.md#mqtt): the browser event stream. One text frame
// per event (docs/concepts.md#events with the service fields filled) for every home the caller can see: a
// user's homes, or every home of a project key's project (scope `events`; a project key also sees
// events of devices in no home). Optional filters: `homeId`, and `eventTypes` (comma-separated,
// or the parameter repeated).
import type { WebSocket, WebSocketServer } from 'ws';
import type { Caller } from '../../src/domain/caller.js';
import { hasScope, requireCaller } from '../../src/domain/auth/access.js';
import { AppError } from '../../src/domain/errors.js';
import { parseId } from '../../src/domain/id.js';
import type { BrokerContext } from '../context.js';
import { closeWebSocket } from '../connections.js';
import { watch } from './liveness.js';
import { tagOutput } from '../live/send.js';
import { callerOf, recordAccess, refuseUpgrade, type UpgradeRequest } from './upgrade-http.js';
import type { Stream } from '../live/user-streams.js';

/** setTimeout's longest delay; a session lasting longer is looked at again then */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * docs/devices.md#mqtt: a user's stream closes when its session ends. Logout and a deleted user arrive as
 * bus revocations (deliver.ts → closeWhere); expiry is this timer, one per user stream.
 */
function closeAtExpiry(ws: WebSocket, expiresAt: string): () => void {
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    const left = Date.parse(expiresAt) - Date.now();
    if (left <= 0) return closeWebSocket(ws, 1008, 'session expired');
    timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS));
    timer.unref();
  };
  arm();
  return () => clearTimeout(timer);
}

function filtersOf(u: UpgradeRequest): { homeId?: number; types?: Set<string> } {
  const q = u.url.searchParams;
  const homeText = q.get('homeId');
  let homeId: number | undefined;
  if (homeText !== null && homeText !== '') {
    homeId = parseId(homeText);
    if (homeId === undefined) throw new AppError('INVALID_PARAMETERS', { issues: [{ path: 'homeId', message: 'homeId must be a positive integer' }] });
  }
  const types = q
    .getAll('eventTypes')
    .flatMap((t) => t.split(','))
    .map((t) => t.trim())
    .filter(Boolean);
  return { homeId, types: types.length ? new Set(types) : undefined };
}

export async function openUserStream(ctx: BrokerContext, wss: WebSocketServer, u: UpgradeRequest): Promise<void> {
  let caller: Caller | undefined;
  let release: (() => void) | undefined;
  try {
    caller = await callerOf(ctx, u);
    requireCaller(caller);
    const { homeId, types } = filtersOf(u);
    const { store } = ctx.deps;
    const s: Omit<Stream, 'ws'> = { caller, projectId: caller.projectId, homeId, types, homesReadAt: Date.now() };
    if (caller.type === 'user') {
      s.homes = new Set(await store.members.homesOf(caller.userId));
      s.expiresAt = (await store.sessions.getByHash(caller.tokenHash))?.expirationTime;
      if (homeId !== undefined && !s.homes.has(homeId)) throw new AppError('HOME_NOT_FOUND', { homeId });
    } else if (caller.type === 'project key') {
      if (!hasScope(caller, 'events')) throw new AppError('PERMISSION_DENIED', { required: 'scope events' });
      if (homeId !== undefined && (await store.homes.get(homeId))?.projectId !== caller.projectId) throw new AppError('HOME_NOT_FOUND', { homeId });
    } else {
      throw new AppError('PERMISSION_DENIED', { required: 'a user token or a project key' });
    }
    const by = caller;
    release = await ctx.streams.hold(ctx);
    const done = release;
    // ws calls back only for a completed upgrade; a socket gone meanwhile never opens a stream
    u.socket.once('close', done);
    wss.handleUpgrade(u.req, u.socket, u.head, (ws) => {
      recordAccess(ctx, u, 101, by);
      watch(ws);
      tagOutput(ws, {
        transport: 'user_stream',
        projectId: by.projectId,
        caller: by,
        name: `event stream of ${by.type} ${by.type === 'user' ? by.userId : by.keyId}`,
      });
      const stream: Stream = { ...s, ws };
      ctx.streams.add(stream);
      const stopTimer = s.expiresAt ? closeAtExpiry(ws, s.expiresAt) : undefined;
      ws.once('close', () => {
        stopTimer?.();
        ctx.streams.remove(stream);
        done();
      });
    });
  } catch (err) {
    release?.();
    refuseUpgrade(ctx, u, err, undefined, caller);
  }
}
