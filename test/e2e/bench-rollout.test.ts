// `npm run bench -- rollout` end to end at a tiny size (20 devices, 2 generators), so the bench
// cannot rot. Only what does not depend on speed is checked: the table is printed with every
// row, every device was notified and got its command (the bench's verdict), and the ratios are
// printed. No figure is asserted.
import { describe, expect, it } from 'vitest';
import { runBench } from '../helpers/bench.js';

const bench = (env: Record<string, string>) => runBench('rollout', env);

describe('npm run bench -- rollout', () => {
  it('runs end to end at a tiny size and prints its figures', { timeout: 600_000 }, async () => {
    const { code, out } = await bench({ BENCH_ROLLOUT_DEVICES: '20', BENCH_FLEET_GENERATORS: '2', BENCH_FLEET_INFLIGHT: '10', BENCH_CONNECTIONS: '5' });
    expect(out, out).toContain('rollout      PASS  20 devices notified in');
    expect(code).toBe(0);
    expect(out).toContain('counts at the end {"targeted":20,"pending":0,"notified":20,"downloading":0,"installed":0,"failed":0}');
    for (const row of ['rollout', 'direct commands', 'outbox commands']) expect(out).toMatch(new RegExp(`^  ${row} +20 +[\\d.]+ +[\\d.]+ .* 0$`, 'm'));
    // at this size a baseline may take less CPU than one clock tick: its ratio is then n/a, never Infinity
    const cpu = String.raw`([\d.]+x|n/a \(under one 10 ms CPU tick\))`;
    expect(out).toMatch(new RegExp(String.raw`rollout / direct: time [\d.]+x, CPU per device ${cpu}; rollout / outbox: time [\d.]+x, CPU per device ${cpu}`));
    expect(out).not.toContain('Infinity');
  });
});
