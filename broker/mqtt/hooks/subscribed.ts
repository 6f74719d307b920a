// docs/devices.md#kv-sync: a device gets the whole KV store "right after it subscribes to its kv topic (every
// connect)". Two Aedes events cover both ways a subscription comes to exist:
// - `subscribe`, emitted once the SUBACK is written, for a SUBSCRIBE packet;
// - `connackSent` with sessionPresent, for a persistent session (clean = false) whose kv
//   subscription Aedes restored without any SUBSCRIBE. (Not `clientReady`: a SUBSCRIBE sent right
//   behind the CONNECT may already be in place by then, and would get its reload twice.)
// The command topic works the same way for the command outbox (docs/concepts.md#command-outbox).
import type { Client, Subscription } from 'aedes';
import type { BrokerContext } from '../../context.js';
import { requestReload } from '../kv-reload.js';
import { sessionOf } from '../../session.js';
import { commandTopic, kvTopic } from '../../topics.js';

export function onSubscribed(ctx: BrokerContext) {
  return (subs: Subscription[], client: Client): void => {
    const s = sessionOf(client);
    if (!s) return;
    const kv = kvTopic(s.device.id);
    const command = commandTopic(s.device.id);
    let kvGranted = false;
    let commandGranted = false;
    for (const sub of subs) {
      // refused filters come back with qos 128
      if ((sub.qos as number) === 128) continue;
      if (sub.topic === kv) kvGranted = true;
      else if (sub.topic === command) commandGranted = true;
    }
    if (kvGranted) requestReload(ctx, client, true);
    // docs/concepts.md#command-outbox: the device's waiting commands, once it listens for commands
    if (commandGranted) ctx.outbox.opened(s);
  };
}

export function onConnackSent(ctx: BrokerContext) {
  return (packet: { sessionPresent?: boolean }, client: Client): void => {
    if (!packet.sessionPresent) return;
    const s = sessionOf(client);
    const restored = (client as Client & { subscriptions: Record<string, unknown> }).subscriptions;
    if (s && restored[kvTopic(s.device.id)]) requestReload(ctx, client);
    if (s && restored[commandTopic(s.device.id)]) ctx.outbox.opened(s);
  };
}
