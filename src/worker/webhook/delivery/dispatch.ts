// What becomes of one delivery once the sender has reported on it (sender-core.ts): decide what
// the result means, write the outcome back under the lease, then tell the operator (general log,
// metrics), tell the target (data-source health) and, on a 410, the domain (domain/webhook/gone.ts). A
// delivery with nothing to send (its target is gone, or a template error) is recorded the same way.
import type { Logger } from 'pino';
import type { Store } from '../../../ports/store.js';
import type { Clock } from '../../../ports/clock.js';
import type { Bus } from '../../../ports/bus.js';
import { laneOf, type DeliveryAttempt, type DeliveryOutcome, type DeliveryRow } from '../../../ports/queue.js';
import { writeLog } from '../../../domain/log/write.js';
import { disableGoneWebhook } from '../../../domain/webhook/gone.js';
import { settleReportDelivery } from '../../../domain/report/webhook.js';
import type { WebhookResult } from '../client/http-client.js';
import { decide, type Decision } from './policy.js';
import type { WorkerMetrics } from '../../metrics.js';
import type { OutcomeWriter } from './outcomes.js';
import type { Target } from '../sender/request.js';
import type { EventPipeline } from '../../../ports/pipeline.js';
import type { FailureLog } from './failure-log.js';
import type { Sealer } from '../../../domain/crypto/sealer.js';

/** attempts kept per delivery (a redelivered one keeps adding rounds) */
export const MAX_ATTEMPTS_KEPT = 50;

export interface DispatchDeps {
  store: Store;
  bus: Bus;
  clock: Clock;
  /** the module cache event deliveries are resolved through (resolve-target.ts) */
  pipeline: EventPipeline;
  /** opens the target keys (Deps.sealer) */
  sealer: Sealer;
  logger: Logger;
  metrics: WorkerMetrics;
  workerId: string;
  /** where outcomes are written (group commit, outcomes.ts) */
  outcomes: OutcomeWriter;
  retryScheduleSeconds: readonly number[];
  /** the retry delay's jitter, in [0, 1) (policy.ts) */
  jitter: () => number;
  /** one general-log line per webhook per window for failures */
  failureLog: FailureLog;
}

/** what the sender (or the target lookup) made of a delivery */
export type Sent = { result: WebhookResult } | { drop: string; templateError?: boolean };

export interface Settled {
  /** when the delivery is due again, if it is to be retried */
  retryInMs?: number;
}

const attemptOf = (time: Date, r: WebhookResult): DeliveryAttempt => {
  const a: DeliveryAttempt = { time: time.toISOString(), latencyMs: Math.round(r.latencyMs * 10) / 10, response: r.responseBody };
  if (r.status !== undefined) a.statusCode = r.status;
  if (r.error !== undefined) a.error = r.error;
  return a;
};

const is2xx = (r: WebhookResult) => r.status !== undefined && r.status >= 200 && r.status < 300;

type Finish = 'failed' | 'dropped' | 'dropped quietly';

/** `target`: the one the request went to (absent when the delivery was dropped before sending) */
export async function settle(deps: DispatchDeps, row: DeliveryRow, target: Target | undefined, sent: Sent): Promise<Settled> {
  const now = deps.clock.now();
  if ('drop' in sent) {
    // docs/webhooks.md#templates (rule 8), docs/api.md#errors: nothing is sent. A template error is news for the operator; a webhook
    // removed or disabled is not (its removal or the 410 was logged when it happened).
    const attempt: DeliveryAttempt = { time: now.toISOString(), error: sent.drop, latencyMs: 0, response: '' };
    await finish(deps, row, { status: 'failed', reason: sent.drop }, attempt, sent.templateError ? 'dropped' : 'dropped quietly');
    return {};
  }
  const result = sent.result;
  deps.metrics.attemptSeconds.observe({ kind: row.kind }, result.latencyMs / 1000);
  const decision = decide(result, row.roundAttempts + 1, deps.retryScheduleSeconds, deps.jitter);
  // the attempt started when the exchange did
  await finish(deps, row, decision, attemptOf(new Date(now.getTime() - result.latencyMs), result));
  if (target?.afterAttempt) {
    await target.afterAttempt(is2xx(result), result.error ?? (result.status !== undefined ? `HTTP ${result.status}` : undefined)).catch((err) => {
      deps.logger.warn({ err, deliveryId: row.id }, 'webhook target state not updated');
    });
  }
  if (decision.status === 'failed' && decision.disable) {
    const input = { projectId: row.projectId, moduleId: row.moduleId, kind: row.kind, reason: decision.reason };
    if (await disableGoneWebhook({ deps, input })) deps.metrics.disabled.inc({ kind: row.kind });
  }
  return { retryInMs: decision.status === 'pending' ? decision.delayMs : undefined };
}

async function finish(deps: DispatchDeps, row: DeliveryRow, d: Decision, attempt: DeliveryAttempt, failedAs: Finish = 'failed'): Promise<void> {
  const now = deps.clock.now();
  const status = d.status !== 'failed' ? d.status : failedAs === 'failed' ? 'failed' : 'dropped';
  const outcome: DeliveryOutcome = {
    status,
    attempts: [...row.attempts, attempt].slice(-MAX_ATTEMPTS_KEPT),
    roundAttempts: row.roundAttempts + 1,
    nextAttemptTime: d.status === 'pending' ? new Date(now.getTime() + d.delayMs).toISOString() : null,
    updateTime: now.toISOString(),
  };
  const kept = await deps.outcomes.write(row.id, outcome);
  deps.metrics.deliveries.inc({ kind: row.kind, outcome: status === 'pending' ? 'retry' : status });
  if (!kept) {
    // the lease ran out and another worker owns the row now: its outcome counts (at least once)
    deps.logger.warn({ deliveryId: row.id }, 'webhook delivery lease lost before its outcome was recorded');
    return;
  }
  // docs/concepts.md#reports: a report run ends with its delivery's outcome
  if (row.kind === 'report' && status !== 'pending') {
    const reason = d.status === 'failed' ? d.reason : undefined;
    await settleReportDelivery({ deps, input: { deliveryId: row.id, payload: row.payload, status, reason, time: outcome.updateTime } }).catch((err) =>
      deps.logger.warn({ err, deliveryId: row.id }, 'report run not settled with its delivery'),
    );
  }
  if (d.status === 'failed' && failedAs !== 'dropped quietly') {
    const { write, held } = deps.failureLog.note(laneOf(row));
    if (!write) return;
    const detail = (failedAs === 'failed' ? ` (attempt ${row.roundAttempts + 1})` : '; nothing was sent') + (held ? `; ${held} more like it not logged` : '');
    await writeLog({
      deps,
      input: {
        projectId: row.projectId,
        level: 'error',
        source: 'webhooks',
        text: `${row.kind} webhook delivery ${row.id} of ${row.moduleId} ${status}: ${d.reason}${detail}`,
      },
    });
  }
}
