// receiveCommands: GET /devices/{id}/command + WebSocket upgrade, by the device itself (its key
// in the Authorization header, or `authToken` for browsers). One text frame per command,
// `{action, parameters}`. The connection counts for presence like an MQTT one (transport
// "websocket"). Frames the device sends here are ignored; ws answers its pings.
import type { WebSocketServer } from 'ws';
import type { Caller } from '../../src/domain/caller.js';
import { deviceFor } from '../../src/domain/auth/access.js';
import { AppError } from '../../src/domain/errors.js';
import { SPEC_STATUSES } from '../../src/protocol/spec-statuses.js';
import type { BrokerContext } from '../context.js';
import { DeviceSession } from '../session.js';
import { watch } from './liveness.js';
import { tagOutput } from '../live/send.js';
import { deviceChannelCallerOf, idOf, recordAccess, refuseGuess, type UpgradeRequest } from './upgrade-http.js';

export async function openCommandSocket(ctx: BrokerContext, wss: WebSocketServer, u: UpgradeRequest, idText: string): Promise<void> {
  let caller: Caller | undefined;
  try {
    const deviceId = idOf(idText, 'DEVICE_NOT_FOUND');
    const signIn = await deviceChannelCallerOf(ctx, u, deviceId);
    caller = signIn.caller;
    const d = await deviceFor(ctx.deps, caller, deviceId, ['self']);
    if ((await ctx.deps.presence.count(d.id)) >= ctx.deps.options.connectionsPerDevice) {
      throw new AppError('LIMIT_EXCEEDED', { deviceId: d.id, connections: ctx.deps.options.connectionsPerDevice });
    }
    const device = { id: d.id, projectId: d.projectId, deviceClass: d.deviceClass, homeId: d.homeId };
    const by = caller;
    wss.handleUpgrade(u.req, u.socket, u.head, (ws) => {
      recordAccess(ctx, u, 101, by);
      watch(ws);
      tagOutput(ws, { transport: 'command_ws', projectId: device.projectId, caller: by, name: `command WebSocket of device ${device.id}` });
      const s = new DeviceSession(device, 'websocket', u.ip, ws, ctx.connectionPrefix);
      s.certificate = signIn.certificate;
      ws.once('close', () => void ctx.connections.detach(s));
      void ctx.connections.attach(s);
      // docs/concepts.md#command-outbox: the device's waiting commands go out on it now
      ctx.outbox.opened(s);
    });
  } catch (err) {
    ctx.metrics.refused('websocket', err instanceof AppError ? err.reason : 'SERVICE_UNAVAILABLE');
    await refuseGuess(ctx, u, err, SPEC_STATUSES.receiveCommands, caller);
  }
}
