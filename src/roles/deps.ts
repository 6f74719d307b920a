// The one Deps of a process, built from its configuration and the adapters it opened: the
// server's (main.ts) and the admin CLI's (scripts/admin/context.ts). What only a server node has
// (NodeParts: presence, the sign-in throttle, metrics, mail, the homeless summary) comes in `node`,
// built by main.ts; a one-shot tool loads none of it and gets the stand-ins of toolParts instead.
import { join } from 'node:path';
import type { Config } from '../config/schema.js';
import type { Store } from '../ports/store.js';
import type { Bus } from '../ports/bus.js';
import type { Presence } from '../ports/presence.js';
import type { Mailer } from '../ports/mailer.js';
import type { OutboxMetrics, PipelineMetrics } from '../ports/metrics.js';
import type { FailureCounter } from '../ports/rate-limiter.js';
import { systemClock } from '../ports/clock.js';
import { createFsBlobStore } from '../adapters/fs/blob-store.js';
import { systemResolver } from '../adapters/dns-resolver.js';
import type { Deps, NodeParts } from '../domain/deps.js';
import { AppError } from '../domain/errors.js';
import { RandomSource } from '../domain/crypto/random.js';
import { Sealer } from '../domain/crypto/sealer.js';
import { IdSource } from '../domain/crypto/ids.js';
import { createEventPipeline } from '../domain/event/pipeline.js';
import { authThrottleOf } from '../domain/auth/throttle.js';
import { HomelessSummary } from '../domain/log/homeless.js';
import { writeLog } from '../domain/log/write.js';
import { removeDeviceCommands } from '../domain/command/device-cleanup.js';
import { removeDeviceRollouts } from '../domain/rollout/device-cleanup.js';
import { trackCommand } from '../domain/rollout/track.js';
import { refuseWhileUploading, removeDeviceLogRequests } from '../domain/logrequest/device-cleanup.js';
import { removeDeviceCertificates } from '../domain/certificate/device-cleanup.js';

/** what a server node adds to a tool's Deps, as main.ts opened it */
export interface NodeAdapters {
  presence: Presence;
  /** the rate limiter's failure counter the sign-in throttle keeps its lanes in */
  failures: FailureCounter;
  pipelineMetrics: PipelineMetrics;
  outboxMetrics: OutboxMetrics;
  mailer: Mailer | undefined;
}

/** the process-wide objects of the domain over one store and secret: a server's, a tool's or a test's */
export type DomainParts = Pick<Deps, 'sealer' | 'random' | 'ids' | 'pipeline' | 'deviceDeletion' | 'commandObservers'>;

export function domainParts({ store, secret }: { store: Store; secret: string }): DomainParts {
  // one random source: credentials, ids, codes and the sealer's IVs are cut from its blocks
  const random = new RandomSource();
  return {
    random,
    // the one unseal cache of the process (the API's reads and the webhook worker's deliveries)
    sealer: new Sealer(secret, random),
    ids: new IdSource(random),
    // the outbox, webhook target cache and local hand-off of this store (domain/event/pipeline.ts):
    // events a tool causes go through an outbox of its own
    pipeline: createEventPipeline({ store }),
    // docs/api.md#device-operations rule 7: the areas that hold a device, or keep records of it
    deviceDeletion: {
      blockers: [(deps, device) => refuseWhileUploading(deps, device.id)],
      cleanups: [
        (deps, device) => removeDeviceCommands(deps, device.id),
        (deps, device) => removeDeviceRollouts(deps, device.id),
        (deps, device) => removeDeviceLogRequests(deps, device.id),
        (deps, device) => removeDeviceCertificates(deps, device.id),
      ],
    },
    // docs/firmware.md#rollouts: a rollout's notification command moves its device
    commandObservers: [trackCommand],
  };
}

const unavailable = () => Promise.reject(new AppError('SERVICE_UNAVAILABLE', { message: 'presence is not available on this node' }));

/**
 * A tool's stand-ins for what only a server node has: it is in no presence (a direct command
 * answers SERVICE_UNAVAILABLE, as no node could say whether the device is there), measures
 * nothing, throttles no sign-in, sends no mail, and holds no summary over time.
 */
export function toolParts(): NodeParts {
  return {
    presence: { connected: unavailable, disconnected: unavailable, count: unavailable, close: async () => {} },
    pipelineMetrics: { eventCommitted: () => {} },
    outboxMetrics: { finished: () => {} },
    authThrottle: undefined,
    mailer: undefined,
    homelessEvents: { note: async () => {}, close: async () => {} },
  };
}

function nodeParts(config: Config, store: Store, node: NodeAdapters): NodeParts {
  return {
    presence: node.presence,
    pipelineMetrics: node.pipelineMetrics,
    outboxMetrics: node.outboxMetrics,
    authThrottle: config.authThrottle.enabled ? authThrottleOf(node.failures, config.authThrottle) : undefined,
    // the first device in no home at once, then one line with a count per interval; per process (cluster: per node)
    homelessEvents: new HomelessSummary(config.homelessEvents.summarySeconds * 1000, (line) =>
      writeLog({ deps: { clock: systemClock, store }, input: { ...line, level: 'warn', source: 'webhooks' } }),
    ),
    // docs/concepts.md#accounts: verification and reset mail, with links to the console when the public URL is known
    mailer: node.mailer,
  };
}

export function buildDeps(config: Config, { store, bus, secret, node }: { store: Store; bus: Bus; secret: string; node?: NodeAdapters }): Readonly<Deps> {
  return {
    store,
    bus,
    clock: systemClock,
    secret,
    ...domainParts({ store, secret }),
    limits: config.limits,
    sessionTtlSeconds: config.sessions.ttlSeconds,
    provisioningTtlSeconds: config.provisioning.ttlSeconds,
    streamTicketTtlSeconds: config.streamTickets.ttlSeconds,
    resolver: systemResolver,
    // docs/webhooks.md: the target policy the API applies to module settings
    webhooks: { allowPrivateTargets: config.webhooks.allowPrivateTargets },
    // log uploads, firmware files and report outputs (docs/concepts.md#log-requests, docs/concepts.md#reports):
    // files in the data directory for every role; a deleted device's uploaded log files go with it
    blobs: createFsBlobStore(join(config.dataDir, 'blobs')),
    logUploads: config.logRequests,
    publicUrl: config.http.publicUrl ?? undefined,
    ...(node ? nodeParts(config, store, node) : toolParts()),
  };
}
