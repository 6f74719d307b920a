// The packed messages between the runner and its sender thread (sender-protocol.ts): what goes
// in comes out, job by job and report by report, in order, whatever the mix of targets and kinds.
import { describe, expect, it } from 'vitest';
import { packJobs, packReports, unpackJobs, unpackReports } from '../../../src/worker/webhook/sender/sender-protocol.js';
import type { Job } from '../../../src/worker/webhook/sender/request.js';
import type { ReportBatch } from '../../../src/worker/webhook/sender/sender-core.js';

// through the structured clone a postMessage makes
const posted = <T>(x: T): T => structuredClone(x);

describe('sender protocol', () => {
  it('jobs come back as they went, their targets shared or not, templates kept', () => {
    const templates = { headers: { 'X-A': '{{eventType}}' }, body: null };
    const jobs: Job[] = [
      { id: 'd1', lane: '1/a/event', url: 'http://h/a', key: 'whk.a', payload: '{"n":1}' },
      { id: 'd2', lane: '1/a/event', url: 'http://h/a', key: 'whk.a', payload: '{"n":2}' },
      { id: 'd3', lane: '1/b/event', url: 'http://h/b', key: 'whk.b', payload: '{"n":3}', templates },
      { id: 'd4', lane: '1/b/event', url: 'http://h/b', key: 'whk.b', payload: '{"n":4}', templates },
      // the same lane again, with a rotated key (a batch may hold both)
      { id: 'd5', lane: '1/a/event', url: 'http://h/a', key: 'whk.a2', payload: '' },
      { id: 'd6', lane: '1/a/event', url: 'http://h/a', key: 'whk.a', payload: 'salle à manger \u{1F600}' },
    ];
    expect(unpackJobs(posted(packJobs(jobs)))).toEqual(jobs);
    expect(unpackJobs(posted(packJobs([])))).toEqual([]);
    // the rows of one webhook carry its target once
    expect(packJobs(jobs.slice(0, 2))[0]).toBe(1);
  });

  it('reports come back as they went: sent (with or without status, error, Retry-After, headers), dropped, released; caps too', () => {
    const batch: ReportBatch = {
      reports: [
        { id: 'd1', result: { ok: true, responseBody: '', latencyMs: 1.5, status: 204 }, signal: 'ok' },
        { id: 'd2', drop: 'TEMPLATE_ERROR: x' },
        {
          id: 'd3',
          result: { ok: false, responseBody: 'busy', latencyMs: 3, status: 503, retryAfterMs: 2000, headers: { 'retry-after': '2' } },
          signal: 'slow',
        },
        { id: 'd4', released: true },
        { id: 'd5', result: { ok: false, responseBody: '', latencyMs: 0, error: 'ECONNREFUSED' }, signal: 'slow' },
        { id: 'd6', result: { ok: false, responseBody: '', latencyMs: 7, status: 302, error: 'REDIRECT_NOT_FOLLOWED' }, signal: 'neutral' },
      ],
      caps: [
        ['1/a/event', 3],
        ['1/b/event', 1],
      ],
    };
    expect(unpackReports(posted(packReports(batch)))).toEqual(batch);
    expect(unpackReports(posted(packReports({ reports: [], caps: [] })))).toEqual({ reports: [], caps: [] });
  });
});
