// `npm run bench -- api`: Hearth's real HTTP server (startHearth, in this process, api role only,
// auth + rate limit + access log + metrics all on) against a bare Hono app and a bare node:http
// server answering the same JSON, loaded alike by autocannon in a child process. Floor: Hearth
// must serve at least 0.6x the requests per second of bare Hono.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { loadHearth } from './baselines/hearth.js';
import { hashToken } from '../../src/domain/auth/tokens.js';
import { newBenchDeviceKey, sealerOf } from './baselines/device-keys.js';
import { measure, measureInterleaved } from './lib/load.js';
import { profiled } from './lib/profile.js';
import { bareHono, bareNode } from './lib/baselines.js';
import { cpuRatio, fmtRatio, printTable, ratio } from './lib/report.js';
import type { BenchOptions, BenchResult, LoadFigures } from './lib/types.js';

// Hearth as users run it: the built server (baselines/hearth.ts)
const { startHearth } = await loadHearth();

const FLOOR = 0.6;
/** alternating rounds per target (lib/load.ts measureInterleaved) */
const ROUNDS = 5;

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
      `  ${opts.connections} connections; per target ${opts.warmupSeconds} s warm-up, then ${opts.durationSeconds} s in ${ROUNDS} alternating rounds (medians); GET ${path} (${JSON.stringify(json).length} bytes)`,
    );

    const hono = await bareHono(path, json);
    const node = await bareNode(path, json);
    try {
      // every target gets the same headers (the baselines ignore them) and the same load
      results.push(
        ...(await measureInterleaved(
          [
            { target: 'hearth', url: base + path },
            { target: 'bare hono', url: hono.url },
            { target: 'bare node:http', url: node.url },
          ],
          { ...opts, headers, rounds: ROUNDS },
        )),
      );
      // BENCH_PROFILE=<dir>: one more run against Hearth alone, CPU-profiled (not in the figures)
      if (process.env.BENCH_PROFILE) await profiled('api-hearth', () => measure('hearth (profiled)', base + path, { ...opts, warmupSeconds: 1, headers }));
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
  const vsHono = ratio(h, hono);
  const vsNode = ratio(h, node);
  const clean = results.every((r) => r.errors === 0 && r.non2xx === 0);
  const pass = clean && vsHono >= FLOOR;
  console.log(`  hearth / bare hono     ${fmtRatio(vsHono)}  (floor ${FLOOR}x: ${vsHono >= FLOOR ? 'PASS' : 'FAIL'})`);
  console.log(`  hearth / bare node     ${fmtRatio(vsNode)}`);
  console.log(
    `  by CPU per request (insensitive to other load on the machine): hearth / bare hono ${fmtRatio(cpuRatio(h, hono))}, hearth / bare node ${fmtRatio(cpuRatio(h, node))}`,
  );
  if (!clean) console.log('  FAIL: some requests failed or answered non-2xx; the figures are not comparable');
  const [load] = loadavg();
  if (load > availableParallelism()) {
    console.log(
      `  note: load average ${load.toFixed(1)} on ${availableParallelism()} cores: other processes starve every target alike, which pulls the req/s ratios toward 1; trust the CPU-per-request ratio`,
    );
  }
  return {
    pass,
    summary: `hearth ${Math.round(h.requestsPerSecond)} req/s p99 ${h.p99} ms; ${fmtRatio(vsHono)} of bare hono, ${fmtRatio(vsNode)} of node:http`,
  };
}
