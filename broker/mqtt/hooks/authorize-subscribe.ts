// Aedes authorizeSubscribe (docs/devices.md#mqtt): a device subscribes only to its own command, kv and
// bulkData response topics; any other filter gets SUBACK 0x80 and the connection stays. Granted
// QoS is min(asked, 1): the QoS is lowered before Aedes sees the packet (packet-guard.ts),
// because Aedes reports in the SUBACK the QoS asked, not the one this hook would return.
// A connection holds at most `maxSubscriptionsPerConnection` filters (docs/devices.md#mqtt, issue 13 F3):
// past it, SUBACK 0x80 for each extra filter and a general-log line (once per device per log
// window, not once per filter). Restored filters of a persistent session count too.
import type { Client, Subscription } from 'aedes';
import type { BrokerContext } from '../../context.js';
import { brokerLog, clip } from '../../general-log.js';
import { sessionOf } from '../../session.js';
import { subscriptionAllowed } from '../../topics.js';

export function authorizeSubscribe(ctx: BrokerContext) {
  return (client: Client, sub: Subscription, done: (err: Error | null, sub?: Subscription | null) => void): void => {
    const s = sessionOf(client);
    if (s && subscriptionAllowed(s.device.id, sub.topic)) {
      const granted = s.granted!;
      const max = ctx.deps.options.maxSubscriptionsPerConnection;
      if (granted.includes(sub.topic)) return done(null, sub);
      if (granted.length < max) {
        s.granted = granted.concat(sub.topic);
        return done(null, sub);
      }
      if (ctx.throttle.allow(`subs:${s.device.id}`)) {
        brokerLog(
          ctx,
          s.device.projectId,
          s.caller(),
          'warn',
          `MQTT subscription to ${clip(sub.topic)} refused: a connection of device ${s.device.id} may hold ${max} subscriptions`,
        );
      }
      return done(null, null);
    }
    if (s) brokerLog(ctx, s.device.projectId, s.caller(), 'warn', `MQTT subscription to ${clip(sub.topic)} refused: not a topic of device ${s.device.id}`);
    // null (not an error): SUBACK 0x80 for this filter, the others and the connection are kept
    done(null, null);
  };
}
