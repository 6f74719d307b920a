// `/devices/{own}/data` (docs/concepts.md#data-sources): the same verb as POST /devices/{id}/data with the device's
// own credential, so the same validation and routing to data sources. Resolves once the records
// are committed: only then does Aedes PUBACK it. MQTT has no answer to carry `partial`, so the
// sources that refused the batch are written to the general log.
import type { Client, PublishPacket } from 'aedes';
import { postData } from '../../../src/domain/data/index.js';
import type { BrokerContext } from '../../context.js';
import { brokerLog } from '../../general-log.js';
import type { DeviceSession } from '../../session.js';
import { jsonObjectOf } from './payload.js';

export async function dataPublished(ctx: BrokerContext, _client: Client, s: DeviceSession, packet: PublishPacket): Promise<void> {
  const r = await postData({
    deps: ctx.deps,
    caller: s.caller(),
    input: { deviceId: s.device.id, body: jsonObjectOf(packet.payload, ctx.deps.options.jsonDepth) },
  });
  if (r.failedDataSources?.length) {
    const refused = r.failedDataSources.map(([id, why]) => `${id} (${why})`).join(', ');
    brokerLog(ctx, s.device.projectId, s.caller(), 'warn', `data post from device ${s.device.id} over MQTT refused by data sources: ${refused}`);
  }
}
