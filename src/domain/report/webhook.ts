// A webhook destination (docs/concepts.md#reports): the run's output goes to the report's URL as one delivery of
// the durable webhook queue (kind `report`, the report id in place of a module id), signed like
// every webhook (docs/webhooks.md#verifying-signatures, docs/webhooks.md) with the report's key when the worker sends it. The body
// carries the output itself up to a size; a larger one is announced and fetched from the API. The run
// ends with its delivery: it stays `running` until the delivery's outcome, which becomes the run's.
import type { StoreOf, SystemArgs } from '../deps.js';
import type { ReportRow, ReportRunRow } from '../../ports/store.js';
import type { NewDelivery } from '../../ports/queue.js';
import type { BlobStore } from '../../ports/blob-store.js';
import type { Window } from './rows.js';

export interface ReportWebhookBody {
  reportId: string;
  runId: string;
  name: string;
  kind: string;
  format: 'csv' | 'json';
  trigger: 'manual' | 'schedule';
  since?: string;
  until?: string;
  rows: number;
  outputBytes: number;
  /** the CSV text, or the JSON array; absent when larger than the configured maximum */
  output?: unknown;
  outputOmitted?: string;
}

export async function reportDelivery(
  blobs: BlobStore,
  report: ReportRow,
  run: ReportRunRow,
  out: { window?: Window; rows: number; key: string; size: number; maxInlineBytes: number },
  now: Date,
  /** the delivery's id (Deps.ids) */
  id: string,
): Promise<NewDelivery> {
  const body: ReportWebhookBody = {
    reportId: report.id,
    runId: run.id,
    name: report.name,
    kind: report.kind,
    format: report.format,
    trigger: run.trigger,
    ...out.window,
    rows: out.rows,
    outputBytes: out.size,
  };
  if (out.size <= out.maxInlineBytes) {
    const text = (await blobs.read(out.key))?.toString('utf8') ?? '';
    body.output = report.format === 'json' ? JSON.parse(text) : text;
  } else {
    body.outputOmitted = `the output is larger than ${out.maxInlineBytes} bytes: GET /scheduledReports/${report.id}/runs/${run.id}/output`;
  }
  return {
    id,
    projectId: report.projectId,
    moduleId: report.id,
    kind: 'report',
    eventId: null,
    eventType: report.kind,
    payload: JSON.stringify(body),
    creationTime: now.toISOString(),
  };
}

/**
 * docs/concepts.md#reports: the outcome of a run's webhook delivery becomes the run's: `success` once
 * delivered, `failure` naming the delivery and its reason once it failed or was dropped (a refused
 * delivery used to leave the run `success`). A redelivery settles the run again.
 */
export async function settleReportDelivery({
  deps,
  input,
}: SystemArgs<
  StoreOf<'reportRuns'>,
  { deliveryId: string; payload: string; status: 'success' | 'failed' | 'dropped'; reason?: string; time: string }
>): Promise<boolean> {
  let runId: unknown;
  try {
    runId = (JSON.parse(input.payload) as Partial<ReportWebhookBody>).runId;
  } catch {
    return false;
  }
  if (typeof runId !== 'string') return false;
  const ok = input.status === 'success';
  return deps.store.reportRuns.settleDelivery(runId, {
    status: ok ? 'success' : 'failure',
    endTime: input.time,
    error: ok ? null : `webhook delivery ${input.deliveryId} ${input.status}: ${input.reason ?? 'unknown reason'}`,
  });
}
