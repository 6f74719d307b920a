// The Presence port: which devices have at least one live connection on any node.
// Adapters: src/adapters/local (in-process map), src/adapters/redis (with node heartbeats).

export interface Presence {
  /** a connection opened; true when it is the device's first live connection anywhere */
  connected(deviceId: number, connectionId: string): Promise<boolean>;
  /** a connection closed; true when it was the device's last live connection anywhere */
  disconnected(deviceId: number, connectionId: string): Promise<boolean>;
  /** number of live connections of the device, on every node */
  count(deviceId: number): Promise<number>;
  close(): Promise<void>;
}
