// getKeyValuePairsReceiveUpdates with `Upgrade: websocket` (docs/devices.md#kv-sync): GET /devices/{id}/kv
// answers 101, sends `reload` first, then every `set` / `delete` as it happens. The peer (the
// device, a project key, a member of its home) may send `set` / `delete` / `reload` on the same
// socket; a message that is not valid is dropped and logged, the socket stays. Watchers are
// not device connections: they do not count for presence. A socket has at most one `reload` being
// built or written (until ws has written it to the socket); requests meanwhile merge into one
// more (docs/devices.md#kv-sync).
import { WebSocket, type WebSocketServer } from 'ws';
import type { Caller } from '../../src/domain/caller.js';
import { deviceFor } from '../../src/domain/auth/access.js';
import { isAppError } from '../../src/domain/errors.js';
import { deleteKv, deviceStore, reloadMessage, setKv } from '../../src/domain/kv/index.js';
import { SPEC_STATUSES } from '../../src/protocol/spec-statuses.js';
import type { BrokerContext } from '../context.js';
import { brokerLog, clip } from '../general-log.js';
import { jsonObjectOf, PayloadError } from '../mqtt/published/payload.js';
import { watch } from './liveness.js';
import { deviceChannelCallerOf, idOf, recordAccess, refuseGuess, type UpgradeRequest } from './upgrade-http.js';
import type { KvWatcher } from '../live/kv-watchers.js';
import { sendText, tagOutput } from '../live/send.js';

export async function openKvSocket(ctx: BrokerContext, wss: WebSocketServer, u: UpgradeRequest, idText: string): Promise<void> {
  let caller: Caller | undefined;
  try {
    const deviceId = idOf(idText, 'DEVICE_NOT_FOUND');
    const signIn = await deviceChannelCallerOf(ctx, u, deviceId);
    caller = signIn.caller;
    const d = await deviceFor(ctx.deps, caller, deviceId, ['project key', 'member', 'self'], 'kv');
    const by = caller;
    wss.handleUpgrade(u.req, u.socket, u.head, (ws) => {
      recordAccess(ctx, u, 101, by);
      watch(ws);
      tagOutput(ws, { transport: 'kv_ws', projectId: d.projectId, caller: by, name: `KV WebSocket of device ${d.id}` });
      const device = { id: d.id, projectId: d.projectId, deviceClass: d.deviceClass, homeId: d.homeId };
      const k: KvWatcher = { ws, deviceId: d.id, projectId: d.projectId, device, caller: by, certificate: signIn.certificate, pending: [] };
      // watch first, then read: no change can fall between the reload and the live stream
      ctx.kvWatchers.add(k);
      ws.once('close', () => ctx.kvWatchers.remove(k));
      ws.on('message', (data) => void onMessage(ctx, k, data.toString()));
      requestReload(ctx, k);
    });
  } catch (err) {
    await refuseGuess(ctx, u, err, SPEC_STATUSES.getKeyValuePairsReceiveUpdates, caller);
  }
}

/** a reload for this socket, merged into the one in progress if any */
function requestReload(ctx: BrokerContext, k: KvWatcher): void {
  if (k.reload) {
    k.reload = 'again';
    return;
  }
  k.reload = 'busy';
  void (async () => {
    do {
      k.reload = 'busy';
      await sendReload(ctx, k);
    } while ((k.reload as KvWatcher['reload']) === 'again' && k.ws.readyState === WebSocket.OPEN);
    k.reload = undefined;
  })();
}

async function sendReload(ctx: BrokerContext, k: KvWatcher): Promise<void> {
  try {
    const reload = await reloadMessage({ deps: ctx.deps, input: { target: deviceStore(k.device) } });
    // resolved once ws wrote it to the socket, or the socket is gone
    const written = new Promise<void>((resolve) => sendText(ctx, k.ws, JSON.stringify(reload), () => resolve()));
    ctx.metrics.kvSyncs.websocket++;
    const queued = k.pending ?? [];
    k.pending = null;
    // changes already in the reload are not sent again
    for (const m of queued) {
      if (m.rev <= reload.rev) continue;
      sendText(ctx, k.ws, JSON.stringify(m));
      ctx.metrics.kvSyncs.websocket++;
    }
    await written;
  } catch (err) {
    ctx.deps.logger.warn({ err, deviceId: k.deviceId }, 'kv reload failed');
    k.ws.terminate();
  }
}

async function onMessage(ctx: BrokerContext, k: KvWatcher, text: string): Promise<void> {
  try {
    const msg = jsonObjectOf(text, ctx.deps.options.jsonDepth);
    if (msg.action === 'reload') return requestReload(ctx, k);
    if (msg.action !== 'set' && msg.action !== 'delete') throw new PayloadError('action must be "set", "delete" or "reload"');
    // access is checked again: a member removed from the home since may no longer write
    const target = deviceStore(await deviceFor(ctx.deps, k.caller, k.deviceId, ['project key', 'member', 'self'], 'kv'));
    if (msg.action === 'set') await setKv({ deps: ctx.deps, input: { target, key: msg.key, value: msg.value } });
    else await deleteKv({ deps: ctx.deps, input: { target, key: msg.key } });
  } catch (err) {
    if (!(err instanceof PayloadError) && !isAppError(err)) ctx.deps.logger.error({ err }, 'kv WebSocket message failed');
    const why = isAppError(err) ? `${err.reason}${err.data ? ' ' + JSON.stringify(err.data) : ''}` : (err as Error).message;
    brokerLog(ctx, k.projectId, k.caller, 'warn', `dropped KV WebSocket message for device ${k.deviceId}: ${clip(why, 500)}`);
  }
}
