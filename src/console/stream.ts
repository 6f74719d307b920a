// The live event stream (GET /userSession/websocket): one socket per signed-in tab, shared by
// every page that listens. It reconnects by itself (1 s, doubling to 30 s); a close for a
// credential that ended (1008) is not retried: the console returns to sign-in.
import { session } from './api';

export interface HearthEvent {
  eventType: string;
  eventData: Record<string, unknown>;
  timestamp: string;
  homeId?: number;
  originDeviceId?: number;
  originDeviceClass?: string;
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

export const wsUrl = (path: string) => `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${path}`;

function connect(): void {
  const s = session();
  if (!s || !wanted) return;
  const ws = new WebSocket(wsUrl(`/userSession/websocket?authToken=${encodeURIComponent(s.token)}`));
  socket = ws;
  ws.onopen = () => {
    retryMs = 1000;
    for (const l of stateListeners) l(true);
  };
  ws.onmessage = (m) => {
    let e: HearthEvent;
    try {
      e = JSON.parse(String(m.data));
    } catch {
      return;
    }
    for (const l of listeners) l(e);
  };
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
  connect();
}

export function stopStream(): void {
  wanted = false;
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
