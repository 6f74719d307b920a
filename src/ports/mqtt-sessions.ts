// The MqttSessions port: which persistent MQTT sessions (clean session 0) each device holds, and
// since when each is offline, so the broker can bound them (API.md §5: persistent sessions per
// device and the offline session lifetime are bounded). Aedes's persistence keeps the sessions'
// contents (subscriptions, queued packets); this keeps the bookkeeping it has no index for.
// Adapters: in-memory (embedded) and Redis (cluster: every broker sees every session).

export interface MqttSessionEntry {
  clientId: string;
  /** ms since the epoch when its last connection ended; null while a connection holds it */
  offlineSince: number | null;
}

export interface MqttSessions {
  /**
   * a connection took the session (`token` names that connection); answers every session of
   * the device, this one included
   */
  connected(deviceId: number, clientId: string, token: string): Promise<MqttSessionEntry[]>;
  /** the connection `token` ended: the session is offline since `at`, unless another connection took it since */
  disconnected(deviceId: number, clientId: string, token: string, at: number): Promise<void>;
  /** the session is gone (ended clean, evicted or expired) */
  remove(deviceId: number, clientId: string): Promise<void>;
  /** up to `limit` sessions offline since before `before`, oldest first */
  expired(before: number, limit: number): Promise<{ deviceId: number; clientId: string }[]>;
}
