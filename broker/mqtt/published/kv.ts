// `/devices/{own}/kv` (docs/devices.md#kv-sync): the device's sync messages. `set` and `delete` are stored (the
// same verbs as REST), which bumps `rev` and echoes the change with its new `rev` to every live
// subscriber, this device included, through the bus. `reload` answers the whole store to this
// connection only, at most one at a time (kv-reload.ts).
import type { Client, PublishPacket } from 'aedes';
import { deleteKv, deviceStore, setKv } from '../../../src/domain/kv/index.js';
import type { BrokerContext } from '../../context.js';
import { currentDevice } from '../current-device.js';
import { requestReload } from '../kv-reload.js';
import type { DeviceSession } from '../../session.js';
import { jsonObjectOf, PayloadError } from './payload.js';

export async function kvPublished(ctx: BrokerContext, client: Client, s: DeviceSession, packet: PublishPacket): Promise<void> {
  const msg = jsonObjectOf(packet.payload, ctx.deps.options.jsonDepth);
  switch (msg.action) {
    case 'set':
    case 'delete': {
      // the system event carries the device's current home (current-device.ts)
      const target = deviceStore(await currentDevice(ctx, s));
      if (msg.action === 'set') await setKv({ deps: ctx.deps, input: { target, key: msg.key, value: msg.value } });
      else await deleteKv({ deps: ctx.deps, input: { target, key: msg.key } });
      return;
    }
    case 'reload':
      // merged into the reload in progress, if any (kv-reload.ts)
      requestReload(ctx, client);
      return;
    default:
      throw new PayloadError('action must be "set", "delete" or "reload"');
  }
}
