// Sending to a WebSocket peer that may have stopped reading: ws would buffer without bound, so a
// peer whose unsent output passes limits.connectionOutputBytes is closed (docs/devices.md#limits,
// output-bound.ts). Each socket is tagged with its owner when it opens, for the one log line.
import { WebSocket } from 'ws';
import type { BrokerCore } from '../core.js';
import { closedSlow, type OutputOwner } from './output-bound.js';

type Tagged = WebSocket & { hearthOutput?: OutputOwner; hearthClosedSlow?: boolean };

/** when the socket opens: who it belongs to (the transport label and the log line) */
export function tagOutput(ws: WebSocket, owner: OutputOwner): void {
  (ws as Tagged).hearthOutput = owner;
}

/** `sent` is called once the text is written to the socket (or with an error when it never will be) */
export function sendText(ctx: BrokerCore, ws: WebSocket, text: string, sent?: (err?: Error) => void): void {
  if (ws.readyState !== WebSocket.OPEN) {
    sent?.(new Error('WebSocket not open'));
    return;
  }
  ws.send(text, sent);
  const unsent = ws.bufferedAmount;
  const t = ws as Tagged;
  if (unsent <= ctx.deps.options.connectionOutputBytes || t.hearthClosedSlow) return;
  t.hearthClosedSlow = true;
  closedSlow(ctx, t.hearthOutput ?? { transport: 'command_ws', projectId: null, caller: undefined, name: 'WebSocket' }, unsent);
  ws.terminate();
}
