// The Bus port: realtime fan-out between roles and nodes. Adapters: src/adapters/local (one
// process), src/adapters/redis (pub/sub). Delivery is at most once: never the only copy of
// anything that must not be lost.
import type { BusMessages, BusTopic } from '../domain/events.js';

export type BusHandler<T extends BusTopic> = (msg: BusMessages[T]) => void;

export interface Bus {
  publish<T extends BusTopic>(topic: T, msg: BusMessages[T]): Promise<void>;
  /** returns the function that unsubscribes */
  subscribe<T extends BusTopic>(topic: T, handler: BusHandler<T>): () => void;
  /** resolves once every subscription made so far is live (Redis subscribes asynchronously) */
  ready?(): Promise<void>;
  close(): Promise<void>;
}
