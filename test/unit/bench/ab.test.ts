// The A/B bench's own logic (scripts/bench/lib/ab.ts): its arguments, the figures it reads out of
// what a bench prints, and the ratio of ratios with its verdict. The end-to-end run of
// `--against HEAD` is test/e2e/bench-ab.test.ts.
import { describe, expect, it } from 'vitest';
import { compareFigures, formatTables, parseAbArgs, parseFigures } from '../../../scripts/bench/lib/ab.js';

describe('bench --against arguments', () => {
  it('is no A/B run without --against', () => {
    expect(parseAbArgs(['api', 'webhooks'])).toBeUndefined();
  });
  it('reads the revision, the rounds and the benches in any order', () => {
    expect(parseAbArgs(['--against', '1848d35', 'webhooks', '--rounds', '5', 'ingest'])).toEqual({
      against: '1848d35',
      rounds: 5,
      sameHarness: false,
      benches: ['webhooks', 'ingest'],
    });
    expect(parseAbArgs(['--against=HEAD~2', '--rounds=1', '--same-harness', 'api'])).toEqual({
      against: 'HEAD~2',
      rounds: 1,
      sameHarness: true,
      benches: ['api'],
    });
  });
  it('refuses a missing revision, bad rounds, unknown flags and A/B flags alone, with the reason', () => {
    expect(() => parseAbArgs(['--against'])).toThrow('--against needs a value');
    expect(() => parseAbArgs(['--against', '--rounds', '2'])).toThrow('--against needs a value');
    expect(() => parseAbArgs(['--against', 'HEAD', '--rounds', '0'])).toThrow('--rounds must be a whole number of at least 1, got 0');
    expect(() => parseAbArgs(['--against', 'HEAD', '--rounds', '1.5'])).toThrow('got 1.5');
    expect(() => parseAbArgs(['--against', 'HEAD', '--fast'])).toThrow('unknown option --fast');
    expect(() => parseAbArgs(['--rounds', '3', 'api'])).toThrow('only go with --against');
  });
});

describe('figures out of a bench output', () => {
  const out = [
    '  target                      req/s   p50 ms   p99 ms',
    '  hearth                        294      7.0     87.0',
    '  hearth / bare hono     0.73x  (floor 0.6x: PASS)',
    '  hearth / bare node     0.35x',
    '  hearth (MQTT) / bare node:http  0.38x  (floor 0.5x: FAIL)',
    '  hearth (HTTP) / bare node:http  0.19x',
    '  by CPU per request (insensitive to other load on the machine): hearth / bare hono 0.50x, hearth / bare node 0.25x',
    '  delivery stage alone (queue filled, then drained): 4,321 events/s = 0.51x of bare node:http',
    '  hearth / bare aedes  1.80x memory per connection  (floor ≤ 2x: PASS)',
    '  hearth, MQTT events: Hearth 1,493 µs CPU per event (main thread 180 µs), device and receiver 237 µs',
    '  hearth / bare aedes  1.16x events/s  (floor 0.5x: PASS);  by CPU per message 0.68x',
    '  api          FAIL  hearth 276 req/s p99 107 ms; 0.57x of bare hono, 0.29x of node:http',
  ].join('\n');
  it('names each ratio by the text before it, without numbers, parentheses or floors', () => {
    expect([...parseFigures(out)]).toEqual([
      ['hearth / bare hono', 0.73],
      ['hearth / bare node', 0.35],
      ['hearth (MQTT) / bare node:http', 0.38],
      ['hearth (HTTP) / bare node:http', 0.19],
      ['by CPU per request: hearth / bare hono', 0.5],
      ['by CPU per request: hearth / bare hono · hearth / bare node', 0.25],
      ['delivery stage alone: # events/s', 0.51],
      ['hearth / bare aedes', 1.8],
      ['hearth, MQTT events: Hearth µs CPU', 1493],
      ['hearth / bare aedes (2)', 1.16],
      ['hearth / bare aedes · by CPU per message', 0.68],
    ]);
  });
  it('keeps a label stable when the numbers on its line change, and numbers repeats', () => {
    const a = parseFigures('  built server   123 [110-140]  1.20x 1.10x\n  built server   99 [90-100]  1.30x 1.00x');
    expect([...a]).toEqual([
      ['built server # [#-#]', 1.2],
      ['built server # [#-#] · #2', 1.1],
      ['built server # [#-#] (2)', 1.3],
      ['built server # [#-#] · #2 (2)', 1],
    ]);
  });
});

describe('ratio of ratios', () => {
  const maps = (label: string, xs: number[]) => xs.map((x) => new Map([[label, x]]));
  it('is median(B) / median(A), a verdict only when every round agrees', () => {
    const [better] = compareFigures(maps('hearth / bare', [0.5, 0.52, 0.48]), maps('hearth / bare', [0.6, 0.62, 0.58]));
    expect(better.ratio).toBeCloseTo(1.2, 5);
    expect(better.verdict).toBe('B better (+20%, every round)');
    const [worse] = compareFigures(maps('x', [0.6, 0.6]), maps('x', [0.4, 0.45]));
    expect(worse.verdict).toMatch(/^B worse \(-29%, every round\)$/);
    const [mixed] = compareFigures(maps('x', [0.5, 0.5, 0.5]), maps('x', [0.7, 0.4, 0.6]));
    expect(mixed.verdict).toBe('no clear change (+20%, rounds 1.40 0.80 1.20)');
  });
  it('turns memory, time, latency and CPU figures round: lower is better', () => {
    const [mem] = compareFigures(maps('hearth / bare aedes memory', [2, 2]), maps('hearth / bare aedes memory', [1.5, 1.6]));
    expect(mem.verdict).toMatch(/^B better/);
    const [cpu] = compareFigures(maps('Hearth µs CPU', [400, 420]), maps('Hearth µs CPU', [600, 650]));
    expect(cpu.verdict).toMatch(/^B worse \(-34%, every round\)$/);
  });
  it('leaves out a figure one side did not print in every round', () => {
    const a = [
      new Map([
        ['x', 1],
        ['y', 1],
      ]),
      new Map([
        ['x', 1],
        ['y', 1],
      ]),
    ];
    const b = [
      new Map([
        ['x', 1.1],
        ['y', 1],
      ]),
      new Map([['x', 1.1]]),
    ];
    expect(compareFigures(a, b).map((r) => r.label)).toEqual(['x']);
  });
  it('prints both sides per round with medians, then B/A with the verdict', () => {
    const text = formatTables('webhooks', compareFigures(maps('mqtt / bare', [0.4, 0.5]), maps('mqtt / bare', [0.6, 0.6])), { a: 'main', b: 'old' });
    expect(text).toContain('webhooks, A main: ratio per round');
    expect(text).toContain('0.40 0.50  (median 0.45)');
    expect(text).toContain('webhooks, B old: ratio per round');
    expect(text).toMatch(/mqtt \/ bare\s+1\.33  B better \(\+33%, every round\)/);
  });
});
