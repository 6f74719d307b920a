// `/devices/{own}/bulkData/{label}` (docs/devices.md#mqtt): allowed, but nothing consumes bulk data yet. The
// publish is accepted and the general log says so, rather than dropping it silently.
import type { Client, PublishPacket } from 'aedes';
import type { BrokerContext } from '../../context.js';
import { brokerLog, clip } from '../../general-log.js';
import type { DeviceSession } from '../../session.js';
import type { PublishKind } from '../../topics.js';

export async function bulkDataPublished(ctx: BrokerContext, _client: Client, s: DeviceSession, packet: PublishPacket, kind: PublishKind): Promise<void> {
  const label = kind.kind === 'bulkData' ? kind.label : '';
  const size = typeof packet.payload === 'string' ? Buffer.byteLength(packet.payload) : packet.payload.length;
  brokerLog(
    ctx,
    s.device.projectId,
    s.caller(),
    'info',
    `bulk data "${clip(label, 64)}" (${size} bytes) from device ${s.device.id} not stored: bulk data is not configured`,
  );
}
