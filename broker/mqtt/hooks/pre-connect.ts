// Aedes preConnect: client ids are namespaced by the device named in the CONNECT, so one device
// can never take over (MQTT-3.1.4-2) another device's session by reusing its client id, nor
// learn that the id is in use. Authentication then proves the username: a forged username fails
// there, before the id is ever registered. An empty client id stays empty: Aedes assigns a
// random one, unique anyway; but with clean session 0 it is refused by authenticate.ts with
// CONNACK 2 [MQTT-3.1.3-8] (preConnect cannot answer a CONNACK: an error here only closes).
import type { Client, ConnectPacket } from 'aedes';
import { ID_PATTERN } from '../../../src/domain/id.js';

/**
 * room for the prefix we add on top of MQTT 3.1's 23 characters: a device id and a slash. Ten
 * digits would do (ID_PATTERN); it stays 17, as when user names were matched up to 16 digits, so
 * that no 3.1 client id accepted before is refused now.
 */
export const CLIENT_ID_PREFIX_MAX = 17;

/** set on a client whose CONNECT had an empty client id and clean session 0 */
export interface WithIdRejected {
  hearthIdRejected?: boolean;
}

export function preConnect(client: Client, packet: ConnectPacket, done: (err: Error | null, ok: boolean) => void): void {
  // [MQTT-3.1.3-8] a zero-byte client id with clean session 0 is identifier rejected
  if (!packet.clientId && packet.clean === false) (client as Client & WithIdRejected).hearthIdRejected = true;
  if (packet.clientId && typeof packet.username === 'string' && ID_PATTERN.test(packet.username)) {
    packet.clientId = `${packet.username}/${packet.clientId}`;
  }
  done(null, true);
}
