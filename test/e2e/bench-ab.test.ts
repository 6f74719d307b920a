// `npm run bench -- --against HEAD`, end to end on the smallest bench: HEAD is checked out in a
// temporary worktree, both trees run the bench in turn, the summary compares a figure both
// printed, and the temporary worktree is gone afterwards. No timing is asserted (the figures of a
// busy machine are whatever they are); only that the A/B machinery works.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');

it('bench --against HEAD runs both trees alternately and compares their ratios', { timeout: 600_000 }, async () => {
  const proc = spawn(resolve(ROOT, 'node_modules/.bin/tsx'), ['scripts/bench/index.ts', '--against', 'HEAD', '--rounds', '2', 'webhook-client'], {
    cwd: ROOT,
    env: { ...process.env, BENCH_WEBHOOK_EXCHANGES: '200', BENCH_WEBHOOK_ROUNDS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout.on('data', (c) => (out += c));
  proc.stderr.on('data', (c) => (out += c));
  const code = await new Promise<number | null>((r) => proc.on('close', r));
  expect(out, out).toContain('A/B summary: 2 round(s)');
  expect(code, out).toBe(0);
  // alternation: A first in odd rounds, B first in even ones
  const order = [...out.matchAll(/== round (\d)\/2 webhook-client, ([AB])/g)].map((m) => m[2] + m[1]);
  expect(order).toEqual(['A1', 'B1', 'B2', 'A2']);
  expect(out).toMatch(/webhook-client, A this checkout \([0-9a-f]+[^)]*\): ratio per round\n/);
  expect(out).toMatch(/webhook-client, B HEAD \([0-9a-f]{10}\): ratio per round\n/);
  // the bench's ratio, named by its text and its unit, in both sides' tables (two rounds and their
  // median), then compared
  expect(out.match(/\n\s+hand-written \/ undici by CPU per exchange\s+\d+\.\d\d \d+\.\d\d {2}\(median \d+\.\d\d\)/g)).toHaveLength(2);
  expect(out).toMatch(/B\/A \(ratio of ratios[^\n]*\n(.*\n)*\s+hand-written \/ undici by CPU per exchange\s+\d+\.\d\d {2}(B better|B worse|no clear change)/);
  const tree = /in (\S+hearth-ab-\S+)\n/.exec(out)?.[1];
  expect(tree, out).toBeDefined();
  expect(existsSync(tree!)).toBe(false);
});
