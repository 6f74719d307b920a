// Liveness of WebSocket peers (docs/devices.md#mqtt: the service answers pings and drops a peer that stops
// answering its own). One timer for every socket pings each peer and drops those that did not
// answer the previous ping: no timer per connection.
import type { WebSocket, WebSocketServer } from 'ws';

type Watched = WebSocket & { missedPing?: boolean };

function markAlive(this: Watched): void {
  this.missedPing = false;
}
export function ignore(): void {}

/** every accepted socket: liveness tracking, and no crash on a peer's protocol error */
export function watch(ws: WebSocket): void {
  ws.on('pong', markAlive);
  ws.on('ping', markAlive);
  ws.on('error', ignore);
}

export function sweep(wss: WebSocketServer): void {
  for (const ws of wss.clients as Set<Watched>) {
    if (ws.missedPing) {
      ws.terminate();
      continue;
    }
    ws.missedPing = true;
    ws.ping();
  }
}
