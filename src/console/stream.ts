// The live event stream (GET /userSession/websocket): one socket per signed-in tab, shared by
// every page that listens. It reconnects by itself (1 s, doubling to 30 s); a close for a
// credential that ended (1008) is not retried: the console returns to sign-in. Every socket is
// opened with a fresh single-use ticket, never with the credential in its URL (docs/api.md#stream-tickets).
import type { EventRecord } from '../ports/store/events';
import { ApiError, session, streamTicket } from './api';

/**
 * an event as the stream and GET /events deliver it: the store port's `EventRecord`, imported as a
 * type only (docs/architecture.md#floors-and-imports; test/unit/ops/console-types.test.ts checks it
 * against /openapi.json), and whatever fields a newer server adds
 */
export interface HearthEvent extends EventRecord {
  [k: string]: unknown;
}

type Listener = (e: HearthEvent) => void;
type StateListener = (open: boolean) => void;

const listeners = new Set<Listener>();
const stateListeners = new Set<StateListener>();
let socket: WebSocket | undefined;
let retryMs = 1000;
let timer: ReturnType<typeof setTimeout> | undefined;
let wanted = false;
let onEnded: (() => void) | undefined;
/** bumped by every connect and stop: a ticket that arrives for an older attempt opens nothing */
let attempt = 0;
/** how many events the stream has delivered in this tab: what a read began after (`eventsReceived`) */
let received = 0;

/**
 * the number of events the stream has delivered so far in this tab. A page that read something from
 * the server notes it when the read begins: an event numbered above it arrived after the read was
 * asked for, so it may be newer than what the read returned and must not be dropped by it (a list
 * fetched while a device was online, answered after its _deviceDisconnected_ arrived)
 */
export const eventsReceived = () => received;

export const wsUrl = (path: string) => `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${path}`;

/** a WebSocket on `path` opened with a fresh ticket (docs/api.md#stream-tickets): the session's token stays out of the URL */
export async function ticketSocket(path: string): Promise<WebSocket> {
  const ticket = await streamTicket();
  return new WebSocket(wsUrl(`${path}${path.includes('?') ? '&' : '?'}ticket=${encodeURIComponent(ticket)}`));
}

/** the socket's messages, parsed as JSON; a message that is not JSON is passed over */
export function onJson<T>(ws: WebSocket, fn: (msg: T) => void): void {
  ws.onmessage = (m) => {
    let msg: T;
    try {
      msg = JSON.parse(String(m.data));
    } catch {
      return;
    }
    fn(msg);
  };
}

async function connect(): Promise<void> {
  if (!session() || !wanted) return;
  const mine = ++attempt;
  let ws: WebSocket;
  try {
    ws = await ticketSocket('/userSession/websocket');
  } catch (err) {
    if (mine !== attempt || !wanted) return;
    // the credential itself was refused: the session ended, as a 1008 close says below
    if (err instanceof ApiError && err.status === 401) {
      wanted = false;
      onEnded?.();
      return;
    }
    timer = setTimeout(connect, (retryMs = Math.min(retryMs * 2, 30_000)));
    return;
  }
  if (mine !== attempt || !wanted) {
    ws.close();
    return;
  }
  socket = ws;
  ws.onopen = () => {
    retryMs = 1000;
    for (const l of stateListeners) l(true);
  };
  onJson<HearthEvent>(ws, (e) => {
    received++;
    for (const l of listeners) l(e);
  });
  ws.onclose = (c) => {
    if (socket !== ws) return;
    socket = undefined;
    for (const l of stateListeners) l(false);
    if (c.code === 1008) {
      wanted = false;
      onEnded?.();
      return;
    }
    if (wanted) timer = setTimeout(connect, (retryMs = Math.min(retryMs * 2, 30_000)));
  };
}

/** open the stream for the signed-in session; `ended`: the service closed it for the credential */
export function startStream(ended: () => void): void {
  onEnded = ended;
  if (wanted) return;
  wanted = true;
  void connect();
}

export function stopStream(): void {
  wanted = false;
  attempt++;
  clearTimeout(timer);
  const s = socket;
  socket = undefined;
  s?.close();
}

export function onEvent(l: Listener): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

export function onStreamState(l: StateListener): () => void {
  stateListeners.add(l);
  l(socket?.readyState === WebSocket.OPEN);
  return () => stateListeners.delete(l);
}
