// This node's browser event streams (sockets/user-session.ts opens them): the node hears the bus's events
// only while a stream is open or opening, and sends each stream the events its filters and
// memberships let through (docs/devices.md#mqtt).
import type { WebSocket } from 'ws';
import type { Caller } from '../../src/domain/caller.js';
import type { BusMessages } from '../../src/ports/bus.js';
import type { BrokerCore } from '../core.js';
import { closeWebSocket } from '../connections.js';
import { sendText } from './send.js';

/** a user's memberships are read again when older than this, as events arrive (no timer) */
const MEMBERSHIP_TTL_MS = 10_000;

export interface Stream {
  ws: WebSocket;
  caller: Caller;
  projectId: number;
  /** the homes a user may see; undefined for a project key (all of them) */
  homes?: Set<number>;
  homesReadAt: number;
  homeId?: number;
  types?: Set<string>;
  /** a user session ends with its token */
  expiresAt?: string;
}

export class UserStreams {
  private readonly all = new Set<Stream>();
  /** streams open or opening; the node hears the bus's events only while there are any */
  private holders = 0;
  private unsubscribe?: () => void;

  /**
   * before a stream opens: subscribes this node to events (once live, no event the stream should
   * see is missed); returns the release, to call once when the stream is gone or never opened
   */
  async hold(ctx: BrokerCore): Promise<() => void> {
    if (this.holders++ === 0) this.unsubscribe = ctx.deps.bus.subscribe('event', (m) => this.deliver(ctx, m));
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      if (--this.holders === 0) {
        this.unsubscribe?.();
        this.unsubscribe = undefined;
      }
    };
    try {
      await ctx.deps.bus.ready?.();
    } catch (err) {
      release();
      throw err;
    }
    return release;
  }

  add(s: Stream): void {
    this.all.add(s);
  }
  remove(s: Stream): void {
    this.all.delete(s);
  }

  deliver(ctx: BrokerCore, m: BusMessages['event']): void {
    let text: string | undefined;
    const now = Date.now();
    let nowIso: string | undefined;
    const e = m.event;
    for (const s of this.all) {
      if (s.projectId !== m.projectId) continue;
      if (s.homeId !== undefined && e.homeId !== s.homeId) continue;
      if (s.types && !s.types.has(e.eventType)) continue;
      if (s.expiresAt && s.expiresAt <= (nowIso ??= new Date(now).toISOString())) {
        closeWebSocket(s.ws, 1008, 'session expired');
        continue;
      }
      if (s.homes) {
        if (now - s.homesReadAt > MEMBERSHIP_TTL_MS) refreshHomes(ctx, s, now);
        if (e.homeId === undefined || !s.homes.has(e.homeId)) continue;
      }
      sendText(ctx, s.ws, (text ??= JSON.stringify(e)));
    }
  }

  closeWhere(pred: (c: Caller) => boolean): void {
    for (const s of this.all) if (pred(s.caller)) closeWebSocket(s.ws, 1008, 'credential revoked');
  }
}

function refreshHomes(ctx: BrokerCore, s: Stream, now: number): void {
  if (s.caller.type !== 'user') return;
  s.homesReadAt = now;
  ctx.deps.store.members.homesOf(s.caller.userId).then(
    (ids) => (s.homes = new Set(ids)),
    (err) => ctx.deps.logger.warn({ err }, 'reading memberships for an event stream failed'),
  );
}
