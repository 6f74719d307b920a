// `npm run bench -- fleet` end to end at a tiny size (20 devices, 2 generators; a cluster of 2
// brokers x 10 devices when PostgreSQL and Redis are configured), so the bench cannot rot. Only
// what does not depend on speed is checked: every table is printed, every device got connected
// (the bench's verdict fails on a refusal or inexact cluster presence), and the storm with
// admission control reports its held count. No figure is asserted.
import { describe, expect, it } from 'vitest';
import { runBench } from '../helpers/bench.js';
import { testDatabaseUrl } from '../helpers/db.js';
import { REDIS_URL } from '../helpers/redis.js';

const cluster = !!(testDatabaseUrl && REDIS_URL);

const bench = (env: Record<string, string>) => runBench('fleet', env);

describe('npm run bench -- fleet', () => {
  it('runs end to end at a tiny size and prints every table', { timeout: 900_000 }, async () => {
    const { code, out } = await bench({
      BENCH_FLEET_SIZES: '20',
      BENCH_FLEET_GENERATORS: '2',
      BENCH_FLEET_INFLIGHT: '10',
      BENCH_FLEET_RATE: '5',
      BENCH_FLEET_ROUNDS: '2',
      BENCH_FLEET_MODES: cluster ? 'embedded,cluster' : 'embedded',
      BENCH_FLEET_CLUSTER_BROKERS: '2',
      BENCH_FLEET_CLUSTER_DEVICES: '10',
      ...(cluster ? { HEARTH_BENCH_DATABASE_URL: testDatabaseUrl!, HEARTH_BENCH_REDIS_URL: REDIS_URL! } : {}),
    });
    expect(out, out).toContain('fleet        PASS');
    expect(code).toBe(0);
    for (const target of ['hearth', 'bare aedes']) expect(out).toMatch(new RegExp(`^  ${target} +20 `, 'm'));
    expect(out).toMatch(/20 devices drop at once: API reads 0 after/);
    for (const storm of ['reconnect to the running node', 'restart, admission off', 'restart, admission 5/s']) expect(out).toContain(storm);
    // the held column is printed (a number); that the gate holds is test/e2e/broker/connect-storm.happy.test.ts's to show
    expect(out).toMatch(/^  restart, admission 5\/s .* \d+$/m);
    expect(out).toMatch(/hearth \/ bare aedes at 20: connects\/s [\d.]+x/);
    // Hearth and bare Aedes in rounds, back to back, the order alternating; every round's ratios,
    // then their medians, saying what they are
    expect(out).toContain('  round 1 of 2 at 20, Hearth first');
    expect(out).toContain('  round 2 of 2 at 20, bare Aedes first');
    expect(out).toMatch(/^ {2}hearth \/ bare aedes at 20, round by round .*: connects\/s -?[\d.]+, -?[\d.]+; memory per device /m);
    expect(out).toMatch(/hearth \/ bare aedes at 20: connects\/s .*\(each the median of the 2 rounds' ratios above\)$/m);
    expect(out.match(/^ {2}hearth +20 /gm)).toHaveLength(2);
    // what the bench's own reads cost Hearth's server, and its CPU per connect without them
    expect(out).toMatch(
      /^  hearth CPU of the bench's own reads .*: [\d,]+ µs a second with every device connected, so up to [\d,]+ of the [\d,]+ µs per connect; -?[\d,]+ µs without them$/m,
    );
    expect(out).toMatch(/hearth \/ bare aedes at 20: .*CPU per connect [\d.]+x, CPU per connect without the bench's reads -?[\d.]+x/);
    // the CPU per connect by thread and where resident memory went, for both node servers
    for (const target of ['hearth', 'bare aedes']) {
      expect(out).toMatch(new RegExp(`^  ${target} CPU µs per connect by thread \\(user\\+system\\):`, 'm'));
      // and by what its threads do: Hearth's excess over bare Aedes was off the main thread
      expect(out).toMatch(
        new RegExp(`^  ${target} CPU µs per connect by kind of thread: main [\\d,]+, V8 platform [\\d,]+, libuv pool [\\d,]+, workers [\\d,]+ \\(`, 'm'),
      );
      expect(out).toMatch(new RegExp(`^  ${target} memory: rss -?[\\d.,]+, heap committed .* young generation [\\d.,]+ → [\\d.,]+ KiB$`, 'm'));
      // and by kind of mapping (malloc's arenas, V8's pages...) and by V8 space
      expect(out).toMatch(
        new RegExp(
          `^  ${target} memory parts: resident by mapping brk -?[\\d.,]+, arenas .* V8 spaces committed \\(used\\) .*old -?[\\d.,]+ \\(-?[\\d.,]+\\).* KiB per device$`,
          'm',
        ),
      );
    }
    if (cluster) {
      expect(out).toMatch(/connect storm: 20 devices in .* refused 0$/m);
      expect(out).toMatch(/SIGKILL broker-1 \(10 devices\): all reconnected after .* still exact after the dead node's timeout .* refused 0$/m);
    }
  });
});
