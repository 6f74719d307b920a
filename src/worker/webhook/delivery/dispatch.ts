// What becomes of deliveries once the sender has reported on them (sender-core.ts, a batch at a
// time): decide what each result means, write the outcomes back under the lease, then tell the operator (general log,
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

/** one delivery the sender (or the target lookup) is done with; `target`: the one the request went to (absent when dropped before sending) */
export interface Done {
  row: DeliveryRow;
  target: Target | undefined;
  sent: Sent;
}

export interface Settled {
  /** when the soonest of them is due again, if any is to be retried */
  retryInMs?: number;
}

const attemptOf = (time: string, r: WebhookResult): DeliveryAttempt => {
  const a: DeliveryAttempt = { time, latencyMs: Math.round(r.latencyMs * 10) / 10, response: r.responseBody };
  if (r.status !== undefined) a.statusCode = r.status;
  if (r.error !== undefined) a.error = r.error;
  return a;
};

const is2xx = (r: WebhookResult) => r.status !== undefined && r.status >= 200 && r.status < 300;

type Finish = 'failed' | 'dropped' | 'dropped quietly';

interface Settling extends Done {
  decision: Decision;
  failedAs: Finish;
  outcome: DeliveryOutcome;
}

/**
 * Settles deliveries finished together (a report batch of the sender): their outcomes are written
 * in one call of the outcome writer (group commit, outcomes.ts), then each is told to whom it
 * concerns. What one delivery's outcome is depends on that delivery alone, as when they were
 * settled one by one.
 */
export async function settleAll(deps: DispatchDeps, done: Done[]): Promise<Settled> {
  const now = deps.clock.now();
  const nowMs = now.getTime();
  const nowIso = now.toISOString();
  const settling: Settling[] = [];
  let retryInMs: number | undefined;
  for (const d of done) {
    const { row, sent } = d;
    let decision: Decision;
    let attempt: DeliveryAttempt;
    let failedAs: Finish = 'failed';
    if ('drop' in sent) {
      // docs/webhooks.md#templates (rule 8), docs/api.md#errors: nothing is sent. A template error is news for the operator; a webhook
      // removed or disabled is not (its removal or the 410 was logged when it happened).
      decision = { status: 'failed', reason: sent.drop };
      attempt = { time: nowIso, error: sent.drop, latencyMs: 0, response: '' };
      failedAs = sent.templateError ? 'dropped' : 'dropped quietly';
    } else {
      const result = sent.result;
      deps.metrics.attemptSeconds.observe({ kind: row.kind }, result.latencyMs / 1000);
      decision = decide(result, row.roundAttempts + 1, deps.retryScheduleSeconds, deps.jitter);
      // the attempt started when the exchange did
      attempt = attemptOf(new Date(nowMs - result.latencyMs).toISOString(), result);
      if (decision.status === 'pending') retryInMs = Math.min(retryInMs ?? Infinity, decision.delayMs);
    }
    const status = decision.status !== 'failed' ? decision.status : failedAs === 'failed' ? 'failed' : 'dropped';
    const attempts = row.attempts.length === 0 ? [attempt] : [...row.attempts, attempt].slice(-MAX_ATTEMPTS_KEPT);
    const outcome: DeliveryOutcome = {
      status,
      attempts,
      roundAttempts: row.roundAttempts + 1,
      nextAttemptTime: decision.status === 'pending' ? new Date(nowMs + decision.delayMs).toISOString() : null,
      updateTime: nowIso,
    };
    // fields named, not spread: a spread copy costs kilobytes on V8 11 (reservations.ts)
    settling.push({ row, target: d.target, sent, decision, failedAs, outcome });
  }
  const kept = await deps.outcomes.write(settling.map((x) => ({ id: x.row.id, projectId: x.row.projectId, outcome: x.outcome })));
  const after: Promise<void>[] = [];
  // the counter moves once per kind and outcome of the batch, not once per delivery
  const counted = new Map<string, { kind: string; outcome: string; n: number }>();
  for (const x of settling) {
    const { row, outcome } = x;
    const as = outcome.status === 'pending' ? 'retry' : outcome.status;
    const c = counted.get(row.kind + as);
    if (c) c.n++;
    else counted.set(row.kind + as, { kind: row.kind, outcome: as, n: 1 });
    if (!kept.has(row.id)) {
      // the lease ran out and another worker owns the row now: its outcome counts (at least once)
      deps.logger.warn({ deliveryId: row.id }, 'webhook delivery lease lost before its outcome was recorded');
    }
    if (hasAfter(x, kept.has(row.id))) after.push(afterOutcome(deps, x, kept.has(row.id)));
  }
  for (const c of counted.values()) deps.metrics.deliveries.inc({ kind: c.kind, outcome: c.outcome }, c.n);
  await Promise.all(after);
  return { retryInMs };
}

/**
 * whether afterOutcome has anything to do (each of its steps' conditions, in its order): a plain
 * success of an event or command webhook needs nothing more, and is spared a promise
 */
function hasAfter(x: Settling, kept: boolean): boolean {
  const { row, outcome, decision: d, failedAs } = x;
  if (kept && ((row.kind === 'report' && outcome.status !== 'pending') || (d.status === 'failed' && failedAs !== 'dropped quietly'))) return true;
  return 'result' in x.sent && (x.target?.afterAttempt !== undefined || (d.status === 'failed' && d.disable === true));
}

/** what follows a recorded outcome besides the record: the report run, the general log, the target's health, a 410 */
async function afterOutcome(deps: DispatchDeps, x: Settling, kept: boolean): Promise<void> {
  const { row, outcome, decision: d, failedAs } = x;
  const status = outcome.status;
  if (kept) {
    // docs/concepts.md#reports: a report run ends with its delivery's outcome
    if (row.kind === 'report' && status !== 'pending') {
      const reason = d.status === 'failed' ? d.reason : undefined;
      await settleReportDelivery({ deps, input: { deliveryId: row.id, payload: row.payload, status, reason, time: outcome.updateTime } }).catch((err) =>
        deps.logger.warn({ err, deliveryId: row.id }, 'report run not settled with its delivery'),
      );
    }
    if (d.status === 'failed' && failedAs !== 'dropped quietly') {
      const { write, held } = deps.failureLog.note(laneOf(row));
      if (write) {
        const detail =
          (failedAs === 'failed' ? ` (attempt ${row.roundAttempts + 1})` : '; nothing was sent') + (held ? `; ${held} more like it not logged` : '');
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
  }
  if (!('result' in x.sent)) return;
  const result = x.sent.result;
  if (x.target?.afterAttempt) {
    await x.target.afterAttempt(is2xx(result), result.error ?? (result.status !== undefined ? `HTTP ${result.status}` : undefined)).catch((err) => {
      deps.logger.warn({ err, deliveryId: row.id }, 'webhook target state not updated');
    });
  }
  if (d.status === 'failed' && d.disable) {
    const input = { projectId: row.projectId, moduleId: row.moduleId, kind: row.kind, reason: d.reason };
    if (await disableGoneWebhook({ deps, input })) deps.metrics.disabled.inc({ kind: row.kind });
  }
}
