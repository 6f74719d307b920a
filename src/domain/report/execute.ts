// One run of a report, on a worker that holds its lease: compute the rows, stream them into the
// output (CSV or JSON) in the blob store, then record the outcome and, for a webhook destination,
// queue the delivery in the same transaction. The run record shows `rows` so far while it works
// (docs/concepts.md#reports: a long run shows progress); each progress write also extends the lease, and a
// lease lost to another worker stops this one without touching the run.
import type { Deps, StoreOf, SystemArgs } from '../deps.js';
import type { ReportRunRow } from '../../ports/store.js';
import { writeLog } from '../log/write.js';
import { WEBHOOK_QUEUE } from '../webhook/fan-out.js';
import { reportTable, type ReportTable, type Row } from './rows.js';
import { encode } from './format.js';
import { windowOf } from './view.js';
import { reportDelivery } from './webhook.js';

export type ExecuteDeps = Pick<Deps, 'bus' | 'clock' | 'blobs' | 'ids'> & StoreOf<'logs' | 'reportData' | 'reportRuns' | 'reports' | 'transaction'>;

export interface ExecuteOptions {
  workerId: string;
  leaseMs: number;
  /** write `rows` to the run record every this many rows */
  progressRows: number;
  maxRows: number;
  /** a webhook body carries the output up to this size */
  webhookMaxBytes: number;
}

export type RunResult = 'success' | 'failure' | 'lost';

class LeaseLost extends Error {}

export const outputKey = (reportId: string, runId: string, format: string) => `reports/${reportId}/${runId}.${format}`;

export async function executeRun({
  deps,
  input: { run, options },
}: SystemArgs<ExecuteDeps, { run: ReportRunRow; options: ExecuteOptions }>): Promise<RunResult> {
  const { store } = deps;
  const leaseUntil = () => new Date(deps.clock.now().getTime() + options.leaseMs).toISOString();
  const fail = async (error: string, rows: number): Promise<RunResult> => {
    const ok = await store.reportRuns.finish(run.id, options.workerId, {
      status: 'failure',
      endTime: deps.clock.now().toISOString(),
      rows,
      error,
      outputKey: null,
      outputBytes: null,
    });
    if (ok)
      await writeLog({
        deps,
        input: { projectId: run.projectId, level: 'error', source: 'reports', text: `report ${run.reportId} run ${run.id} failed: ${error}` },
      });
    return ok ? 'failure' : 'lost';
  };
  const report = await store.reports.get(run.reportId);
  if (!report) return fail('the report was deleted', 0);
  const blobs = deps.blobs;

  const window = windowOf(report, run.dueTime);
  const table = reportTable(store, report, window);
  let rows = 0;
  let beatAt = Date.now();
  const beat = async () => {
    beatAt = Date.now();
    if (!(await store.reportRuns.progress(run.id, options.workerId, rows, leaseUntil()))) throw new LeaseLost();
  };
  async function* counted(): AsyncIterable<Row> {
    for await (const row of table.rows) {
      if (++rows > options.maxRows) throw new Error(`more than ${options.maxRows} rows: narrow the filter or the window`);
      if (rows % options.progressRows === 0 || Date.now() - beatAt > options.leaseMs / 3) await beat();
      yield row;
    }
  }
  const counting: ReportTable = { columns: table.columns, rows: counted() };
  const key = outputKey(report.id, run.id, report.format);
  try {
    const { size } = await blobs.put(key, encode(report.format, counting));
    const now = deps.clock.now();
    const delivery =
      report.destination.type === 'webhook'
        ? await reportDelivery(blobs, report, run, { window, rows, key, size, maxInlineBytes: options.webhookMaxBytes }, now, deps.ids.delivery(now))
        : undefined;
    const done = await store.transaction(async (tx) => {
      // a webhook destination's run ends with its delivery (webhook.ts settleReportDelivery): running until then
      const ok = await tx.reportRuns.finish(run.id, options.workerId, {
        status: delivery ? 'running' : 'success',
        endTime: delivery ? null : now.toISOString(),
        rows,
        error: null,
        outputKey: key,
        outputBytes: size,
      });
      if (ok && delivery) await tx.deliveries.insertMany([delivery]);
      return ok;
    });
    // lost: the worker that took over writes the same key and records its own outcome
    if (!done) return 'lost';
    if (delivery) await deps.bus.publish('work', { queue: WEBHOOK_QUEUE });
    await writeLog({
      deps,
      input: {
        projectId: run.projectId,
        level: 'info',
        source: 'reports',
        text: `report ${report.id} run ${run.id} (${run.trigger}): ${rows} rows, ${size} bytes`,
      },
    });
    return 'success';
  } catch (e) {
    if (e instanceof LeaseLost) return 'lost';
    await blobs.delete(key).catch(() => false);
    return fail((e as Error).message || 'unexpected error', rows);
  }
}
