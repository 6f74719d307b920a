// WebSocket upgrades on the HTTP port (docs/devices.md#mqtt), routed by path before Hono sees the request:
//   /  and  /mqtt           MQTT over WebSocket, with or without the `mqtt` subprotocol
//   /devices/{id}/command   the device command channel
//   /devices/{id}/kv        the KV sync channel (docs/devices.md#kv-sync)
//   /userSession/websocket  the browser event stream
// Every socket has maxPayload = the frame cap, and one timer for all of them pings each peer and
// drops those that did not answer the previous ping (no timer per connection).
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, createWebSocketStream } from 'ws';
import type { BrokerContext } from '../context.js';
import { guardClient } from '../limits/packet-guard.js';
import { boundMqttOutput } from '../live/output-bound.js';
import { openCommandSocket } from '../sockets/command.js';
import { openKvSocket } from '../sockets/kv.js';
import { openUserStream } from '../sockets/user-session.js';
import { upgradeRequest } from '../sockets/upgrade-http.js';
import { ignore, sweep, watch } from '../sockets/liveness.js';

export interface WebSockets {
  mqtt: WebSocketServer;
  plain: WebSocketServer;
  close(): void;
}

/** MQTT over WebSocket: `mqtt` (3.1.1) or `mqttv3.1` when offered; none is fine too */
function pickMqttProtocol(offered: Set<string>): string | false {
  if (offered.has('mqtt')) return 'mqtt';
  if (offered.has('mqttv3.1')) return 'mqttv3.1';
  const [first] = offered;
  return first ?? false;
}

export function createWebSockets(ctx: BrokerContext): WebSockets {
  const common = { noServer: true, maxPayload: ctx.deps.options.wsFrameBytes, perMessageDeflate: false, clientTracking: true } as const;
  const mqtt = new WebSocketServer({ ...common, handleProtocols: pickMqttProtocol });
  const plain = new WebSocketServer(common);
  const timer = setInterval(() => {
    sweep(mqtt);
    sweep(plain);
  }, ctx.deps.options.wsPingIntervalMs);
  timer.unref();
  return {
    mqtt,
    plain,
    close() {
      clearInterval(timer);
      for (const ws of [...mqtt.clients, ...plain.clients]) ws.terminate();
      mqtt.close();
      plain.close();
    },
  };
}

const DEVICE_PATH = /^\/devices\/([^/]+)\/(command|kv)$/;

/** true when the broker took the request; false leaves it to the HTTP API */
export function upgradeRouter(ctx: BrokerContext, sockets: WebSockets) {
  return (req: IncomingMessage, socket: Duplex, head: Buffer): boolean => {
    if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket') return false;
    const u = upgradeRequest(req, socket, head, ctx.deps.clientIpOf);
    const path = u.url.pathname;
    // a peer resetting during the asynchronous checks below must not crash the process
    socket.on('error', ignore);
    if (path === '/' || path === '/mqtt') {
      sockets.mqtt.handleUpgrade(req, socket, head, (ws) => {
        watch(ws);
        const client = ctx.aedes.handle(createWebSocketStream(ws), req);
        guardClient(client, ctx.deps.options.mqttPacketBytes);
        boundMqttOutput(ctx, client, ws);
      });
      return true;
    }
    const m = DEVICE_PATH.exec(path);
    if (m) {
      void (m[2] === 'command' ? openCommandSocket(ctx, sockets.plain, u, m[1]) : openKvSocket(ctx, sockets.plain, u, m[1]));
      return true;
    }
    if (path === '/userSession/websocket') {
      void openUserStream(ctx, sockets.plain, u);
      return true;
    }
    socket.off('error', ignore);
    return false;
  };
}
