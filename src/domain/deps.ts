// What domain verbs get: ports and a typed slice of configuration. Built by main.ts (or a test).
import type { Store } from '../ports/store.js';
import type { Bus } from '../ports/bus.js';
import type { Clock } from '../ports/clock.js';

export interface DomainLimits {
  eventDataBytes: number;
  kvValueBytes: number;
  kvKeysPerStore: number;
  listDefault: number;
  listMax: number;
}

export interface Deps {
  store: Store;
  bus: Bus;
  clock: Clock;
  /** seals device keys and claim codes (AES-256-GCM with a key derived from it) */
  secret: string;
  limits: DomainLimits;
  sessionTtlSeconds: number;
  provisioningTtlSeconds: number;
}
