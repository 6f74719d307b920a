// The sender (sender-core.ts) on the worker's own loop and in its thread (threaded-sender.ts):
// every job ends in exactly one report; requests are signed; the worker's concurrency and each
// lane's cap hold; template errors send nothing; stale and stopped jobs go back unsent; the
// target policy applies where the exchange runs; a thread that dies loses no job.
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createLocalSender, type Sender } from '../../../src/worker/webhook/sender/sender.js';
import { createThreadedSender, SENDER_FAILED, type ThreadedSender } from '../../../src/worker/webhook/sender/threaded-sender.js';
import type { Report, ReportBatch, SenderOptions } from '../../../src/worker/webhook/sender/sender-core.js';
import type { WebhookClientOptions } from '../../../src/worker/webhook/client/http-client.js';
import type { Job } from '../../../src/worker/webhook/sender/request.js';
import { verify } from '../../../src/worker/webhook/sender/signature.js';
import { INITIAL_CAP } from '../../../src/worker/webhook/sender/lanes.js';
import { startServer } from './servers.js';
import { startThread } from '../../../src/adapters/thread-port.js';

const KEY = 'whk.sender-test-key';
// a wait for an event, not a time limit: a thread starting on a loaded machine can take seconds
// (20 s was seen too short for a thread beside a CPU hog); the tests' own timeout spans their waits
const WAIT = { timeout: 45_000 };
vi.setConfig({ testTimeout: 120_000 });

function harness(kind: 'local' | 'threaded', client: Partial<WebhookClientOptions> = {}, opts: Partial<SenderOptions> = {}) {
  const reports: Report[] = [];
  const caps = new Map<string, number>();
  const deliver = (b: ReportBatch) => {
    reports.push(...b.reports);
    for (const [lane, cap] of b.caps) caps.set(lane, cap);
  };
  // a receiver here answers at once: the exchange timeout only bounds a failure, and a test about
  // timeouts sets its own
  const c = { allowPrivateTargets: true, timeoutMs: 20_000, ...client };
  const o = { concurrency: 4, staleMs: 10_000, ...opts };
  const sender: Sender = kind === 'local' ? createLocalSender(c, o, deliver) : createThreadedSender(startThread, c, o, deliver);
  onTestFinished(async () => {
    await sender.stop(0);
    sender.close();
  });
  const until = (n: number) => expect.poll(() => reports.length, WAIT).toBeGreaterThanOrEqual(n);
  return { sender, reports, caps, until };
}

const job = (id: string, url: string, o: Partial<Job> = {}): Job => ({
  id,
  lane: '1/m/event',
  url,
  key: KEY,
  payload: `{"id":"${id}","text":"salle à manger"}`,
  ...o,
});

describe.each(['local', 'threaded'] as const)('sender (%s)', (kind) => {
  it('sends every job signed, and reports each exactly once', async () => {
    const server = await startServer((_req, res) => res.end('ok'));
    const h = harness(kind, {}, { concurrency: 8 });
    const url = `${server.url}/hook`;
    h.sender.submit(Array.from({ length: 30 }, (_, i) => job(`d${i}`, url, { lane: `1/m${i % 3}/event` })));
    await h.until(30);
    expect(h.reports.map((r) => r.id).sort()).toEqual(Array.from({ length: 30 }, (_, i) => `d${i}`).sort());
    // the reports that are not a success, so a failure shows what they were
    expect(h.reports.filter((r) => !('result' in r && r.result.ok && r.signal === 'ok'))).toEqual([]);
    expect(server.requests).toHaveLength(30);
    for (const q of server.requests) {
      expect(verify(KEY, url, q.body, String(q.headers['x-service-signature']))).toBe(true);
      expect(q.body).toBe(`{"id":"${q.headers['x-service-delivery']}","text":"salle à manger"}`);
    }
  });

  it('holds the worker’s concurrency and each lane’s cap, which grows with successes', async () => {
    // answers only when the test says so; the log shows what arrived before which answer
    const log: string[] = [];
    const held: (() => void)[] = [];
    let open = 0;
    let most = 0;
    const server = await startServer((req, res) => {
      log.push(`in ${req.headers['x-service-delivery']}`);
      most = Math.max(most, ++open);
      held.push(() => {
        open--;
        log.push(`out ${req.headers['x-service-delivery']}`);
        res.end('ok');
      });
    });
    const answer = () => held.shift()?.();
    const h = harness(kind, {}, { concurrency: 3 });
    h.sender.submit([job('a', server.url), job('b', server.url), job('c', server.url)]);
    await expect.poll(() => server.requests.length, WAIT).toBe(INITIAL_CAP);
    answer();
    await expect.poll(() => server.requests.length, WAIT).toBe(3);
    // a new lane starts at its initial cap: `c` waited for an answer
    expect(log.indexOf('in c')).toBeGreaterThan(log.indexOf('out a'));
    // then grows by one per success, up to the worker's concurrency: each answer waits until the
    // sender has filled every slot it may (or sent everything), so the peak does not depend on
    // how fast this loop runs against the sender's loop or thread
    h.sender.submit(Array.from({ length: 12 }, (_, i) => job(`d${i}`, server.url)));
    for (let left = 14; left > 0; left--) {
      await expect.poll(() => open >= 3 || server.requests.length === 15, WAIT).toBe(true);
      answer();
    }
    await h.until(15);
    expect(most).toBe(3);
    expect(h.caps.get('1/m/event')).toBe(3);
  });

  it('works through a long buffer, passing over a full lane, each job once', async () => {
    // 300 jobs (past the buffer's compaction) in two lanes; lane b's receiver holds its answers
    // until lane a is done, so b sits at its cap and the scan passes over its jobs for a's. (The
    // order requests arrive in is not the order they started: they go over parallel sockets.)
    const held: (() => void)[] = [];
    let aDone = 0;
    const order: string[] = [];
    const server = await startServer((req, res) => {
      const id = String(req.headers['x-service-delivery']);
      order.push(id);
      if (id.startsWith('a')) {
        res.end('ok');
        if (++aDone === 200) for (const h of held.splice(0)) h();
      } else if (aDone >= 200) res.end('ok');
      else held.push(() => res.end('ok'));
    });
    const h = harness(kind, {}, { concurrency: 8 });
    const url = `${server.url}/hook`;
    const jobs = Array.from({ length: 300 }, (_, i) =>
      i % 3 === 2 ? job(`b${String(i).padStart(3, '0')}`, url, { lane: '1/b/event' }) : job(`a${String(i).padStart(3, '0')}`, url),
    );
    h.sender.submit(jobs);
    await h.until(300);
    expect(h.reports.map((r) => r.id).sort()).toEqual(jobs.map((j) => j.id).sort());
    expect(h.reports.filter((r) => !('result' in r && r.result.ok))).toEqual([]);
    expect(server.requests).toHaveLength(300);
    // lane a was not held up behind lane b's full cap: all of a arrived before b's third job
    const thirdB = order.filter((id) => id.startsWith('b'))[INITIAL_CAP];
    expect(order.indexOf(thirdB)).toBeGreaterThan(order.lastIndexOf(order.filter((id) => id.startsWith('a')).at(-1)!));
  });

  it('reports a template error as a drop and sends nothing', async () => {
    const server = await startServer((_req, res) => res.end('ok'));
    const h = harness(kind);
    h.sender.submit([job('bad', server.url, { templates: { headers: null, body: '{"a": {{eventType}}' } })]);
    await h.until(1);
    expect(h.reports[0]).toMatchObject({ id: 'bad', drop: expect.stringMatching(/^TEMPLATE_ERROR: /) });
    expect(server.requests).toHaveLength(0);
  });

  it('gives back jobs left waiting behind a stuck lane, and those still waiting at stop', async () => {
    const server = await startServer(() => {}); // never answers
    // the stuck exchange's timeout outlasts the test, so only the release can report the others
    const h = harness(kind, { timeoutMs: 120_000 }, { concurrency: 1, staleMs: 100 });
    h.sender.submit([job('stuck', server.url), job('w1', server.url), job('w2', server.url)]);
    await h.until(2);
    expect(h.reports.map((r) => r.id).sort()).toEqual(['w1', 'w2']);
    expect(h.reports.every((r) => 'released' in r)).toBe(true);
    h.sender.submit([job('late', server.url)]);
    await h.sender.stop(50);
    // the exchange under way outlived the grace period: not reported (the runner gives it back)
    await h.until(3);
    expect(h.reports.map((r) => r.id)).toEqual(['w1', 'w2', 'late']);
    expect(h.reports[2]).toMatchObject({ released: true });
    // the releases need not wait for the stuck request to reach the server: wait for it
    await expect.poll(() => server.requests.map((q) => q.headers['x-service-delivery']), WAIT).toEqual(['stuck']);
  });

  it('applies the target policy where the exchange runs, to literal addresses and to names as dialled', async () => {
    const server = await startServer((_req, res) => res.end('should not be reached'));
    const h = harness(kind, { allowPrivateTargets: false });
    h.sender.submit([job('literal', server.url), job('named', server.url.replace('127.0.0.1', 'localhost'))]);
    await h.until(2);
    for (const r of h.reports) expect(r).toMatchObject({ result: { ok: false, error: 'TARGET_NOT_ALLOWED' } });
    expect(server.requests).toHaveLength(0);
  });
});

describe('threaded sender', () => {
  it('a thread that dies reports its jobs as failed attempts, and the next submit starts a new one', async () => {
    // `held` is never answered and its timeout outlasts the test: only the thread's death ends it
    const server = await startServer((req, res) => req.headers['x-service-delivery'] !== 'held' && res.end('late'));
    const reports: Report[] = [];
    const errors: unknown[] = [];
    const sender: ThreadedSender = createThreadedSender(
      startThread,
      { allowPrivateTargets: true, timeoutMs: 120_000 },
      { concurrency: 2, staleMs: 10_000 },
      (b) => reports.push(...b.reports),
      (e) => errors.push(e),
    );
    onTestFinished(() => sender.close());
    sender.submit([job('held', server.url)]);
    await expect.poll(() => server.requests.length, WAIT).toBe(1);
    const first = sender.thread!;
    await first.terminate();
    await expect.poll(() => reports.length, WAIT).toBe(1);
    expect(reports[0]).toMatchObject({ id: 'held', result: { ok: false, error: SENDER_FAILED } });
    sender.submit([job('again', server.url)]);
    await expect.poll(() => reports.length, WAIT).toBe(2);
    expect(reports[1]).toMatchObject({ id: 'again', result: { ok: true, status: 200 } });
    expect(sender.thread).toBeDefined();
    expect(sender.thread).not.toBe(first);
  });

  it('refuses bad limits when built, not at the first job', () => {
    expect(() => createThreadedSender(startThread, { allowPrivateTargets: true, timeoutMs: 0 }, { concurrency: 1, staleMs: 1000 }, () => {})).toThrow(
      RangeError,
    );
  });
});
