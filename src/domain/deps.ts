// What domain verbs get: ports and a typed slice of configuration, built by main.ts (or a test).
// A verb takes one object, `verb({ deps, caller, input })` (VerbArgs): deps a Pick of these (of the
// Store only the repositories it uses, StoreOf<...>), caller who asks, input plain data; a raw
// request body is always `input.body`, parsed at the top (docs/architecture.md#house-rules).
import type { Resolver } from '../ports/resolver.js';
import type { Store } from '../ports/store.js';
import type { Bus } from '../ports/bus.js';
import type { Clock } from '../ports/clock.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { Mailer } from '../ports/mailer.js';
import type { Presence } from '../ports/presence.js';
import type { OutboxMetrics, PipelineMetrics } from '../ports/metrics.js';
import type { EventPipeline } from '../ports/pipeline.js';
import type { AuthThrottle } from '../ports/rate-limiter.js';
import type { HomelessSummary } from './log/homeless.js';
import type { Caller } from './auth/caller.js';

/** deps holding only the named parts of the Store: a verb says which repositories it uses (`StoreOf<'devices' | 'kv'>`) */
export type StoreOf<K extends keyof Store> = { store: Pick<Store, K> };

/** what a verb takes: `verb({ deps, caller, input })`; an input type that may be undefined (or none) makes input optional */
export type VerbArgs<D, I = undefined> = { deps: D; caller: Caller } & InputOf<I>;
/** what a verb no caller asks takes (housekeeping, or one that finds out who asks, like a login) */
export type SystemArgs<D, I = undefined> = { deps: D } & InputOf<I>;
type InputOf<I> = undefined extends I ? { input?: I } : { input: I };

/** the raw request body of a verb, parsed at the top: always `input.body` */
export type Body = { body: unknown };
export type DeviceRef = { deviceId: number };
export type ProjectRef = { projectId: number };
export type HomeRef = { homeId: number };
/** the client's address, which the sign-in throttles are mostly per */
export type ClientIp = { ip?: string };

export interface DomainLimits {
  eventDataBytes: number;
  kvValueBytes: number;
  kvKeysPerStore: number;
  /** docs/devices.md#limits: a store's `reload` message may serialise to at most this many bytes */
  kvStoreBytes: number;
  listDefault: number;
  listMax: number;
  /** docs/api.md#conventions: JSON nesting allowed in bodies and payloads (json-depth.ts); absent: 32 */
  jsonDepth?: number;
  /** docs/concepts.md#command-outbox: unfinished commands one device may hold; absent: 100 */
  outboxPerDevice?: number;
  /** docs/firmware.md#files: the largest firmware file a bundle component may carry; absent: 64 MiB */
  firmwareFileBytes?: number;
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
  /** names to addresses, for the webhook target policy's registration check (webhook/target-policy.ts) */
  resolver: Resolver;
  /** the event outbox, webhook target cache and local hand-off: one per store, built once (event/pipeline.ts) */
  pipeline: EventPipeline;
  /** which devices are connected (commands answer DEVICE_OFFLINE without it); set by main.ts */
  presence?: Presence;
  /** uploaded log files and report outputs (docs/concepts.md#log-requests, docs/concepts.md#reports); set by main.ts, absent: 503 */
  blobs?: BlobStore;
  /** docs/concepts.md#log-requests/docs/api.md#limits log upload limits; absent: the defaults of src/domain/logrequest/limits.ts */
  logUploads?: { maxFileBytes: number; partBytes: number; uploadTtlSeconds: number };
  /** docs/webhooks.md webhook target policy for module settings; set by main.ts, absent: private targets refused */
  webhooks?: { allowPrivateTargets: boolean };
  /** the event pipeline's figures for /metrics; set by main.ts */
  pipelineMetrics?: PipelineMetrics;
  /** the command outbox's figures for /metrics (docs/concepts.md#command-outbox); set by main.ts */
  outboxMetrics?: OutboxMetrics;
  /** docs/concepts.md: failed logins, signups and claim/provisioning guesses back off; absent: not throttled */
  authThrottle?: AuthThrottle;
  /** docs/concepts.md#accounts: account mail (verification, password reset); absent: no mail server, those are off */
  mailer?: Mailer;
  /** docs/concepts.md#accounts: the server's public base URL (`http.publicUrl`) for links in mail; absent: mail carries the code only */
  publicUrl?: string;
  /** docs/api.md#stream-tickets: how long a WebSocket ticket may wait to be redeemed; absent: 10 s */
  streamTicketTtlSeconds?: number;
  /**
   * docs/concepts.md#homes: events of a device in no home reach no module; the general log says so in one
   * line per project and interval (the first device at once, then a count with a few ids; per process).
   * Absent: not said.
   */
  homelessEvents?: HomelessSummary;
}
