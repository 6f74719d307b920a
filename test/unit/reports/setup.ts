// A test API with file storage for report outputs, and helpers to run queued runs in-process
// (what the worker role does) and to read CSV back.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { createFsBlobStore } from '../../../src/adapters/fs/blob-store.js';
import { executeRun, type ExecuteOptions } from '../../../src/domain/report/index.js';
import type { Deps } from '../../../src/domain/deps.js';

export const RUN_OPTIONS: ExecuteOptions = { workerId: 'test-worker', leaseMs: 60_000, progressRows: 1000, maxRows: 1_000_000, webhookMaxBytes: 1 << 20 };

export async function makeReportApi(): Promise<TestApi> {
  const t = await makeTestApi();
  const blobDir = mkdtempSync(join(tmpdir(), 'hearth-report-blobs-'));
  t.deps.blobs = createFsBlobStore(blobDir);
  t.deps.webhooks = { allowPrivateTargets: true };
  return {
    ...t,
    async close() {
      await t.close();
      rmSync(blobDir, { recursive: true, force: true });
    },
  };
}

/** claims and executes every queued run, as a worker would; returns how many ran */
export async function runQueued(deps: Pick<Deps, 'store' | 'bus' | 'clock' | 'blobs' | 'ids'>, o: Partial<ExecuteOptions> = {}): Promise<number> {
  const opts = { ...RUN_OPTIONS, ...o };
  let n = 0;
  for (;;) {
    const now = deps.clock.now();
    const runs = await deps.store.reportRuns.claim(opts.workerId, now.toISOString(), new Date(now.getTime() + opts.leaseMs).toISOString(), 10);
    if (!runs.length) return n;
    for (const run of runs) await executeRun({ deps, input: { run, options: opts } });
    n += runs.length;
  }
}

/** RFC 4180 CSV into rows of fields */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += ch;
  }
  if (field !== '' || row.length) rows.push([...row, field]);
  return rows;
}

export async function outputOf(t: TestApi, reportId: string, runId: string): Promise<{ status: number; type: string | null; text: string }> {
  const res = await t.app.request(`/scheduledReports/${reportId}/runs/${runId}/output`, { headers: { authorization: `ModeCloud ${t.adminKey}` } });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}
