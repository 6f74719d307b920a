// Sending to a WebSocket peer that may have stopped reading: ws would buffer without bound, so a
// peer past the configured backlog is dropped (the WebSocket counterpart of Aedes drainTimeout).
import { WebSocket } from 'ws';
import type { BrokerCore } from './core.js';

/** `done`: called once the frame is written (no error) or could not be (an error) */
export function sendText(ctx: BrokerCore, ws: WebSocket, text: string, done?: (err?: Error) => void): void {
  if (ws.readyState !== WebSocket.OPEN) return done?.(new Error('the WebSocket is not open'));
  if (ws.bufferedAmount > ctx.deps.options.wsBufferedBytes) {
    ctx.deps.logger.debug({ buffered: ws.bufferedAmount }, 'dropping a WebSocket peer that stopped reading');
    ws.terminate();
    return done?.(new Error('the WebSocket peer stopped reading'));
  }
  ws.send(text, done);
}
