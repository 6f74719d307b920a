// The Presence port: which devices have at least one live connection on any node.
// Adapters: src/adapters/local (in-process map), src/adapters/redis (with node heartbeats).

export interface Presence {
  /** a connection opened; true when it is the device's first live connection anywhere */
  connected(deviceId: number, connectionId: string): Promise<boolean>;
  /** a connection closed; true when it was the device's last live connection anywhere */
  disconnected(deviceId: number, connectionId: string): Promise<boolean>;
  /**
   * number of live connections of the device, on every node: a number at once when the adapter
   * holds them in this process (local), else a promise (Redis). Every device CONNECT asks (its
   * connection cap): a promise, an async frame and a turn of the microtask queue fewer a connect
   */
  count(deviceId: number): number | Promise<number>;
  /**
   * Devices whose last live connection was held by a node that stopped heartbeating. Set once by
   * the composition root, which marks them offline; adapters without nodes never call it.
   */
  onOrphaned?(handler: (deviceIds: number[]) => Promise<void>): void;
  /**
   * Devices whose live connections on this node were written back after the shared state lost
   * them (Redis restarted empty, or this node was taken for dead): the composition root marks
   * those the reaper had marked offline connected again. Adapters without nodes never call it.
   */
  onRestored?(handler: (deviceIds: number[]) => Promise<void>): void;
  close(): Promise<void>;
}
