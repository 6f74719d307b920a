// `npm run bench -- webhook-client`: the delivery stage alone, CPU per exchange of each webhook
// client in the same run. A receiver (node:http, keep-alive, answers 200 "ok") runs in a child
// process, so only the client's CPU is counted here: process.cpuUsage() around N exchanges with
// `concurrency` in flight to one origin, clients taking turns, rounds repeated so the spread of a
// shared machine shows. Requests are what the worker sends: a signed docs/webhooks.md#event-webhook JSON body.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWebhookClient, type WebhookClient, type WebhookClientOptions } from '../../src/worker/webhook/client/http-client.js';
import { createUndiciWebhookClient } from './lib/undici-pool.js';
import { buildRequest } from '../../src/worker/webhook/sender/request.js';
import type { BenchOptions, BenchResult } from './lib/types.js';

const RECEIVER = `
import http from 'node:http';
const server = http.createServer((req, res) => { req.on('data', () => {}); req.on('end', () => res.end('ok')); });
server.keepAliveTimeout = 30000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
`;

/** the clients compared: Hearth's (the hand-written pool, http1-pool.ts) and the same on undici */
export const CLIENTS: Record<string, (o: WebhookClientOptions) => WebhookClient> = {
  'hand-written': createWebhookClient,
  undici: createUndiciWebhookClient,
};

async function exchanges(client: WebhookClient, url: string, count: number, concurrency: number): Promise<number> {
  const payload = JSON.stringify({
    eventType: 'benchReading',
    eventData: { n: 1, reading: 21.5, unit: 'C' },
    timestamp: new Date().toISOString(),
    homeId: 1,
    originDeviceId: 1,
    originDeviceClass: 'default',
  });
  let next = 0;
  let failed = 0;
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const id = String(next++);
        const prepared = buildRequest({ id, lane: 'w:1', url, key: 'k'.repeat(32), payload });
        if (!('send' in prepared)) throw new Error('no request');
        const r = await client.send(prepared.send);
        if (!r.ok) failed++;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  if (failed > 0) throw new Error(`${failed} exchanges failed`);
  return (used.user + used.system) / count;
}

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const count = Number(process.env.BENCH_WEBHOOK_EXCHANGES ?? 20_000);
  const rounds = Number(process.env.BENCH_WEBHOOK_ROUNDS ?? 3);
  const concurrency = Number(process.env.BENCH_WEBHOOK_CONCURRENCY ?? 16);
  const dir = mkdtempSync(join(tmpdir(), 'hearth-bench-client-'));
  writeFileSync(join(dir, 'receiver.mjs'), RECEIVER);
  const rx: ChildProcess = fork(join(dir, 'receiver.mjs'), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const port = await new Promise<number>((resolve) => rx.once('message', (m: { port: number }) => resolve(m.port)));
    const url = `http://127.0.0.1:${port}/hook`;
    const names = Object.keys(CLIENTS);
    const micros: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
    console.log(`  ${count} exchanges per client per round, ${concurrency} in flight, ${rounds} rounds (clients alternate)`);
    for (let round = 0; round <= rounds; round++) {
      for (const name of round % 2 === 0 ? names : [...names].reverse()) {
        const client = CLIENTS[name]({ allowPrivateTargets: true, responseHeaders: false });
        // round 0 is warm-up (JIT, sockets)
        const us = await exchanges(client, url, round === 0 ? Math.max(1000, count / 10) : count, concurrency);
        client.close();
        if (round > 0) {
          micros[name].push(us);
          console.log(`  round ${round} ${name.padEnd(12)} ${us.toFixed(1)} µs CPU per exchange`);
        }
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const line = names
      .map((n) => `${n} ${median(micros[n]).toFixed(1)} µs (${Math.min(...micros[n]).toFixed(1)}–${Math.max(...micros[n]).toFixed(1)})`)
      .join(', ');
    console.log(`  median (min–max): ${line}`);
    // the one ratio of this bench (what `--against` compares): above 1, the hand-written pool is cheaper
    console.log(`  hand-written / undici  ${(median(micros.undici) / median(micros['hand-written'])).toFixed(2)}x by CPU per exchange`);
    void opts;
    return { pass: true, summary: `CPU per exchange: ${line}` };
  } finally {
    rx.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
