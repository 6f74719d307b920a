// `npm run bench -- api`: Hearth's real HTTP server (startHearth, in this process, api role only,
// auth + rate limit + access log + metrics all on) against a bare Hono app and a bare node:http
// server answering the same JSON, loaded alike by autocannon in a child process. Floor (issue
// #26): Hearth must serve at least 0.7x the requests per second of bare Hono.
//
// The targets take turns in ROUNDS rounds of a slice each (Hearth, bare Hono, bare node:http in
// odd rounds, the other way round in even ones: Hearth and bare Hono back to back in every round),
// and a ratio is the median of the rounds' own ratios, as the fleet bench's are. On a shared
// machine a burst of someone else's work meets one slice: before, the ratio of each target's
// median over the rounds let a burst in Hearth's slices and a quiet spell in bare Hono's (not
// necessarily of the same round) decide it (an A/B of 2026-11-28 read 0.86x and 0.58x).
// Hearth's CPU per request is also split by thread (the access-log thread writes its rows).
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { loadHearth } from './baselines/hearth.js';
import { hashToken } from '../../src/domain/auth/tokens.js';
import { newBenchDeviceKey, sealerOf } from './baselines/device-keys.js';
import { measure, measureInterleaved, median } from './lib/load.js';
import { selfThreadKinds, threadKindLines } from './lib/proc-cpu.js';
import { profiled } from './lib/profile.js';
import { bareHono, bareNode } from './lib/baselines.js';
import { cpuRatio, fmtRatio, printTable, ratio } from './lib/report.js';
import type { BenchOptions, BenchResult, LoadFigures } from './lib/types.js';

// Hearth as users run it: the built server (baselines/hearth.ts)
const { startHearth } = await loadHearth();

const FLOOR = 0.7;
/** alternating rounds per target (lib/load.ts measureInterleaved): even, so each order runs as often */
const ROUNDS = 6;

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-bench-'));
  const config = loadConfig({
    HEARTH_DATA_DIR: dataDir,
    HEARTH_HOST: '127.0.0.1',
    HEARTH_HTTP_PORT: '0',
    HEARTH_ROLES: 'api',
    HEARTH_LOG_LEVEL: 'warn',
    // on, but far above what one client can send: the check runs on every request
    HEARTH_RATE_LIMIT_ENABLED: 'true',
    HEARTH_RATE_LIMIT_PER_SECOND: '10000000',
    HEARTH_RATE_LIMIT_BURST: '20000000',
  });
  const hearth = await startHearth(config, pino({ level: 'warn' }));
  const results: LoadFigures[] = [];
  try {
    const adminKey = hearth.adminKey!;
    const deviceKey = newBenchDeviceKey();
    const device = await hearth.deps.store.devices.create({
      projectId: 1,
      deviceClass: 'default',
      homeId: null,
      name: 'bench device',
      description: 'created through the store by scripts/bench/api.ts',
      tag: 'SN-0001',
      apiKeyHash: hashToken(deviceKey),
      apiKeySealed: (await sealerOf(hearth))(deviceKey),
      claimCodeHash: null,
      claimCodeSealed: null,
      claimExpirationTime: null,
      claimTime: null,
      creationTime: new Date().toISOString(),
      bundleInstalled: null,
      bundleInstallTime: null,
      channel: null,
    });
    const base = `http://127.0.0.1:${hearth.httpPort}`;
    const headers = { authorization: `ModeCloud ${adminKey}` };
    const path = `/devices/${device.id}`;
    const probe = await fetch(base + path, { headers });
    if (probe.status !== 200) throw new Error(`GET ${path} answered ${probe.status}: ${await probe.text()}`);
    const json = await probe.json();
    console.log(
      `  ${opts.connections} connections; per target ${opts.warmupSeconds} s warm-up, then ${ROUNDS} alternating rounds of ${Math.max(1, Math.round(opts.durationSeconds / ROUNDS))} s (ratios: medians of the rounds' own); GET ${path} (${JSON.stringify(json).length} bytes)`,
    );

    const hono = await bareHono(path, json);
    const node = await bareNode(path, json);
    // which thread is which (the libuv pool found by giving it work), before anything is measured
    const kindOf = await selfThreadKinds();
    try {
      // every target gets the same headers (the baselines ignore them) and the same load
      results.push(
        ...(await measureInterleaved(
          [
            { target: 'hearth', url: base + path },
            { target: 'bare hono', url: hono.url },
            { target: 'bare node:http', url: node.url },
          ],
          { ...opts, headers, rounds: ROUNDS, kindOf },
        )),
      );
      // BENCH_PROFILE=<dir>: one more run against Hearth alone, CPU-profiled (not in the figures),
      // and one against bare Hono, to hold Hearth's profile against (PERF_STAGE=api-bare-hono)
      if (process.env.BENCH_PROFILE) {
        await profiled('api-hearth', () => measure('hearth (profiled)', base + path, { ...opts, warmupSeconds: 1, headers }));
        await profiled('api-bare-hono', () => measure('bare hono (profiled)', hono.url, { ...opts, warmupSeconds: 1, headers }));
      }
    } finally {
      await hono.close();
      await node.close();
    }
  } finally {
    await hearth.close();
    rmSync(dataDir, { recursive: true, force: true });
  }

  printTable(results);
  const [h, hono, node] = results;
  // each round's own ratio (bare Hono's slice right next to Hearth's, bare node:http's one further), then their median
  const byRound = (f: (h: LoadFigures, other: LoadFigures) => number, other: LoadFigures) => h.rounds!.map((r, i) => f(r, other.rounds![i]));
  const perRound = {
    hono: byRound(ratio, hono),
    node: byRound(ratio, node),
    cpuHono: byRound(cpuRatio, hono),
    cpuNode: byRound(cpuRatio, node),
  };
  const vsHono = median(perRound.hono);
  const vsNode = median(perRound.node);
  const clean = results.every((r) => r.errors === 0 && r.non2xx === 0);
  const pass = clean && vsHono >= FLOOR;
  const rounds = (xs: number[]) => `(rounds ${xs.map((x) => x.toFixed(2)).join(' ')})`;
  console.log(`  hearth / bare hono     ${fmtRatio(vsHono)}  (floor ${FLOOR}x: ${vsHono >= FLOOR ? 'PASS' : 'FAIL'}) ${rounds(perRound.hono)}`);
  console.log(`  hearth / bare node     ${fmtRatio(vsNode)} ${rounds(perRound.node)}`);
  console.log(
    `  by CPU per request (insensitive to other load on the machine): hearth / bare hono ${fmtRatio(median(perRound.cpuHono))}, hearth / bare node ${fmtRatio(median(perRound.cpuNode))} ${rounds(perRound.cpuHono)}`,
  );
  for (const line of threadKindLines('  hearth per request', h.threads as never, 'access-log thread')) console.log(line);
  for (const line of threadKindLines('  bare hono per request', hono.threads as never, 'busiest worker thread')) console.log(line);
  if (!clean) console.log('  FAIL: some requests failed or answered non-2xx; the figures are not comparable');
  const [load] = loadavg();
  if (load > availableParallelism()) {
    console.log(
      `  note: load average ${load.toFixed(1)} on ${availableParallelism()} cores: other processes starve the targets unevenly, slice by slice (single rounds from a quarter of bare Hono's rate to nearly twice it at a load average of 18 to 26, 2026-11-28); trust the CPU-per-request ratio`,
    );
  }
  return {
    pass,
    summary: `hearth ${Math.round(h.requestsPerSecond)} req/s p99 ${h.p99} ms; ${fmtRatio(vsHono)} of bare hono, ${fmtRatio(vsNode)} of node:http`,
  };
}
