// What domain verbs get: ports and a typed slice of configuration, built by main.ts (or a test).
// A verb takes one object, `verb({ deps, caller, input })` (VerbArgs): deps a Pick of these (of the
// Store only the repositories it uses, StoreOf<...>), caller who asks, input plain data; a raw
// request body is always `input.body`, parsed at the top (docs/architecture.md#house-rules).
import type { Resolver } from '../ports/resolver.js';
import type { CommandRow, DeviceRow, Store } from '../ports/store.js';
import type { Bus } from '../ports/bus.js';
import type { Clock } from '../ports/clock.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { Mailer } from '../ports/mailer.js';
import type { Presence } from '../ports/presence.js';
import type { OutboxMetrics, PipelineMetrics } from '../ports/metrics.js';
import type { EventPipeline } from '../ports/pipeline.js';
import type { AuthThrottle } from '../ports/rate-limiter.js';
import type { HomelessEvents } from '../ports/homeless.js';
import type { Caller } from './caller.js';
import type { RandomSource } from './crypto/random.js';
import type { Sealer } from './crypto/sealer.js';
import type { IdSource } from './crypto/ids.js';

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
  /** docs/api.md#conventions: JSON nesting allowed in bodies and payloads (json-depth.ts) */
  jsonDepth: number;
  /** docs/concepts.md#command-outbox: unfinished commands one device may hold */
  outboxPerDevice: number;
  /** docs/firmware.md#files: the largest firmware file a bundle component may carry */
  firmwareFileBytes: number;
}

/** throws AppError('DEVICE_IN_USE', ...) when the device must not be deleted now (device/delete.ts) */
export type DeviceBlocker = (deps: Pick<Deps, 'store' | 'clock' | 'blobs'>, device: DeviceRow) => Promise<unknown>;
/** runs after a device is deleted, for an area that keeps records of its own about it; a failure is logged, the deletion stays */
export type DeviceCleanup = (deps: Pick<Deps, 'store' | 'clock' | 'blobs'>, device: DeviceRow) => Promise<unknown>;
/** told of every committed state change of an outbox command (command/outbox-view.ts), after its event */
export type CommandObserver = (deps: EmitDeps & Pick<Deps, 'store'>, command: CommandRow) => Promise<void>;

/** what emitting an event takes (event/emit.ts): every verb that announces something picks these */
export type EmitDeps = Pick<Deps, 'pipeline' | 'bus' | 'clock' | 'ids' | 'pipelineMetrics'>;

/**
 * What only a running server node has. The admin CLI is no node: it joins no presence, serves no
 * /metrics, throttles no sign-in and holds no summaries over time, so src/roles/deps.ts gives it
 * stand-ins for these (toolParts), built there and nowhere else.
 */
export interface NodeParts {
  /** which devices are connected; the CLI's stand-in answers SERVICE_UNAVAILABLE */
  presence: Presence;
  /** the event pipeline's figures for /metrics */
  pipelineMetrics: PipelineMetrics;
  /** the command outbox's figures for /metrics (docs/concepts.md#command-outbox) */
  outboxMetrics: OutboxMetrics;
  /** docs/concepts.md: failed logins, signups and claim/provisioning guesses back off; undefined: turned off (`authThrottle.enabled`) */
  authThrottle: AuthThrottle | undefined;
  /** docs/concepts.md#accounts: account mail (verification, password reset); undefined: no mail server, those are off */
  mailer: Mailer | undefined;
  /**
   * docs/concepts.md#homes: events of a device in no home reach no module; the general log says so in one
   * line per project and interval (the first device at once, then a count with a few ids; per process)
   */
  homelessEvents: HomelessEvents;
}

/** everything a verb may be handed: built once per process by src/roles/deps.ts (buildDeps), or by a test */
export interface Deps extends NodeParts {
  store: Store;
  bus: Bus;
  clock: Clock;
  /** the server secret: keys the account-code HMAC (auth/tokens.ts); sealing goes through `sealer` */
  secret: string;
  /** seals device keys, claim codes and webhook keys under the secret, and remembers recent unseals */
  sealer: Sealer;
  /** where credentials, ids, codes and IVs get their random bytes */
  random: RandomSource;
  /** event and delivery ids */
  ids: IdSource;
  limits: DomainLimits;
  sessionTtlSeconds: number;
  provisioningTtlSeconds: number;
  /** docs/api.md#stream-tickets: how long a WebSocket ticket may wait to be redeemed */
  streamTicketTtlSeconds: number;
  /** names to addresses, for the webhook target policy's registration check (webhook/target-policy.ts) */
  resolver: Resolver;
  /** the event outbox, webhook target cache and local hand-off: one per store, built once (event/pipeline.ts) */
  pipeline: EventPipeline;
  /** uploaded log files, firmware files and report outputs (docs/concepts.md#log-requests, docs/concepts.md#reports) */
  blobs: BlobStore;
  /** docs/concepts.md#log-requests, docs/api.md#limits: log upload limits */
  logUploads: { maxFileBytes: number; partBytes: number; uploadTtlSeconds: number };
  /** docs/webhooks.md: the webhook target policy for module settings */
  webhooks: { allowPrivateTargets: boolean };
  /** docs/concepts.md#accounts: the server's public base URL (`http.publicUrl`) for links; undefined: mail carries the code only */
  publicUrl: string | undefined;
  /** docs/api.md#device-operations rule 7: each area's checks before a device is deleted, and its cleanups after */
  deviceDeletion: { blockers: readonly DeviceBlocker[]; cleanups: readonly DeviceCleanup[] };
  /** told of outbox command state changes (a rollout's notification moves its device: rollout/track.ts) */
  commandObservers: readonly CommandObserver[];
}
