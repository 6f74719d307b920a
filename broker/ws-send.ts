// Sending to a WebSocket peer that may have stopped reading: ws would buffer without bound, so a
// peer past the configured backlog is dropped (the WebSocket counterpart of Aedes drainTimeout).
import { WebSocket } from 'ws';
import type { BrokerCore } from './core.js';

export function sendText(ctx: BrokerCore, ws: WebSocket, text: string): void {
  if (ws.readyState !== WebSocket.OPEN) return;
  if (ws.bufferedAmount > ctx.deps.options.wsBufferedBytes) {
    ctx.deps.logger.debug({ buffered: ws.bufferedAmount }, 'dropping a WebSocket peer that stopped reading');
    ws.terminate();
    return;
  }
  ws.send(text);
}
