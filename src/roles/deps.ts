// The one Deps of a process, built from its configuration and the adapters it opened: the
// server's (main.ts) and the admin CLI's (scripts/admin/context.ts). What only a server node has
// (presence, the sign-in throttle, metrics, mail, the homeless summary) comes in `node`, built by
// main.ts, so that a one-shot tool loads none of it.
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
import type { Deps } from '../domain/deps.js';
import { createEventPipeline } from '../domain/event/pipeline.js';
import { authThrottleOf } from '../domain/auth/throttle.js';
import { HomelessSummary } from '../domain/log/homeless.js';
import { writeLog } from '../domain/log/write.js';

/** what a server node adds to a tool's Deps */
export interface NodeParts {
  presence: Presence;
  /** the rate limiter's failure counter the sign-in throttle keeps its lanes in */
  failures: FailureCounter;
  pipelineMetrics: PipelineMetrics;
  outboxMetrics: OutboxMetrics;
  mailer: Mailer | undefined;
}

export function buildDeps(config: Config, { store, bus, secret, node }: { store: Store; bus: Bus; secret: string; node?: NodeParts }): Readonly<Deps> {
  const deps: Deps = {
    store,
    bus,
    clock: systemClock,
    secret,
    limits: config.limits,
    sessionTtlSeconds: config.sessions.ttlSeconds,
    provisioningTtlSeconds: config.provisioning.ttlSeconds,
    streamTicketTtlSeconds: config.streamTickets.ttlSeconds,
    resolver: systemResolver,
    // the outbox, webhook target cache and local hand-off of this store (domain/event/pipeline.ts):
    // events a tool causes go through an outbox of its own
    pipeline: createEventPipeline({ store }),
    // docs/webhooks.md: the target policy the API applies to module settings
    webhooks: { allowPrivateTargets: config.webhooks.allowPrivateTargets },
    // log uploads and report outputs (docs/concepts.md#log-requests, docs/concepts.md#reports): files in the
    // data directory for every role; a deleted device's uploaded log files go with it
    blobs: createFsBlobStore(join(config.dataDir, 'blobs')),
    logUploads: config.logRequests,
    publicUrl: config.http.publicUrl ?? undefined,
  };
  if (!node) return deps;
  return {
    ...deps,
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
