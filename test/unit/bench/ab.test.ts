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
      ['delivery stage alone: # events/s of bare node:http', 0.51],
      ['hearth / bare aedes memory per connection', 1.8],
      ['hearth, MQTT events: Hearth µs CPU', 1493],
      ['hearth / bare aedes events/s', 1.16],
      ['hearth / bare aedes · by CPU per message', 0.68],
    ]);
  });
  it('keys a figure by a stable name: the same label printed again is told apart by its unit, not by its place', () => {
    // connections prints "hearth / bare aedes" three times; a side that skips the heap line must
    // still match the other side's memory and rate figures, each under its own name
    const full = parseFigures(
      [
        '  hearth / bare aedes  1.80x memory per connection  (floor ≤ 2x: PASS)',
        '  hearth / bare aedes  1.12x live heap per connection (steadier than RSS)',
        '  hearth / mosquitto   1.50x memory per connection',
        '  connects/s: hearth 300, bare aedes 400; hearth / bare aedes 0.75x (target ≥ 0.8x), memory 1.70x (target ≤ 1.0x)',
      ].join('\n'),
    );
    expect([...full]).toEqual([
      ['hearth / bare aedes memory per connection', 1.8],
      ['hearth / bare aedes live heap per connection', 1.12],
      ['hearth / mosquitto memory per connection', 1.5],
      ['hearth / bare aedes', 0.75],
      ['hearth / bare aedes · memory', 1.7],
    ]);
    const noHeap = parseFigures('  hearth / bare aedes  2.10x memory per connection\n  connects/s: hearth 1; hearth / bare aedes 0.70x');
    expect(noHeap.get('hearth / bare aedes memory per connection')).toBe(2.1);
    expect(noHeap.get('hearth / bare aedes')).toBe(0.7);
    // a fleet size after "at" is part of the name; p50 / p99 keep their digits
    const fleet = parseFigures(
      [
        '  hearth / bare aedes at 1,000: connects/s 1.00x (target ≥ 0.8x), memory per device 1.20x (target ≤ 1.0x)',
        '  hearth / bare aedes at 10,000: connects/s 0.90x (target ≥ 0.8x), memory per device 1.30x (target ≤ 1.0x)',
        '  hearth MQTT p50 / bare 1.20x, p99 / bare 3.00x (no floor: reported)',
      ].join('\n'),
    );
    expect([...fleet.keys()]).toEqual([
      'hearth / bare aedes at 1,000: connects/s',
      'hearth / bare aedes at 1,000: connects/s · memory per device',
      'hearth / bare aedes at 10,000: connects/s',
      'hearth / bare aedes at 10,000: connects/s · memory per device',
      'hearth MQTT p50 / bare',
      'hearth MQTT p50 / bare · p99 / bare',
    ]);
  });
  it("names a table row's ratios by the row and the column header", () => {
    const table = parseFigures(
      [
        '  command                             wall ms   CPU ms  wall x  CPU x',
        '  node -e 0                           40 [38]       35   1.00x  1.00x',
        '  bundle projects list                120 [110]     95   3.00x  2.70x',
        '  slowest command: projects list, 95 ms CPU',
        '  hearth MQTT p50 / bare 1.20x, p99 / bare 1.30x',
      ].join('\n'),
    );
    expect([...table]).toEqual([
      ['node -e # · wall x', 1],
      ['node -e # · CPU x', 1],
      ['bundle projects list · wall x', 3],
      ['bundle projects list · CPU x', 2.7],
      ['hearth MQTT p50 / bare', 1.2],
      ['hearth MQTT p50 / bare · p99 / bare', 1.3],
    ]);
  });
  it('keeps a label stable when the numbers on its line change, and numbers a line printed twice', () => {
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
  it("reads the direction off the figure's own name, its unit included", () => {
    const verdict = (label: string, a: number[], b: number[]) => compareFigures(maps(label, a), maps(label, b))[0].verdict;
    // memory printed after the number: more memory on B is worse, less is better
    expect(verdict('hearth / bare aedes memory per connection', [1.5, 1.5], [2, 2])).toMatch(/^B worse/);
    expect(verdict('hearth / bare aedes memory per connection', [2, 2], [1.5, 1.5])).toMatch(/^B better/);
    expect(verdict('hearth / bare aedes at 1,000: connects/s · memory per device', [1, 1], [1.3, 1.3])).toMatch(/^B worse/);
    expect(verdict('hearth MQTT p50 / bare · p99 / bare', [2, 2], [3, 3])).toMatch(/^B worse/);
    // the webhooks bench's half-load p99 over its target (a constant): a longer tail is worse
    const p99 = [...parseFigures('  half-load webhook p99 / target (5 ms, issue 26)  1.24x\n').keys()][0];
    expect(p99).toBe('half-load webhook p99 / target');
    expect(verdict(p99, [1.24, 1.1], [1.6, 1.5])).toMatch(/^B worse/);
    expect(verdict('bundle projects list · CPU x', [2, 2], [3, 3])).toMatch(/^B worse/);
    // Hearth's CPU per operation over the baseline's (the fleet bench's "CPU per connect 1.66x")
    expect(verdict('hearth / bare aedes at 2,000: connects/s · CPU per connect', [1.54, 1.54], [1.77, 1.77])).toMatch(/^B worse/);
    // CPU per event at a rate: the rate in the name ("@#/s") does not make it a throughput
    expect(verdict('hearth MQTT @#/s: Hearth µs CPU', [563, 563], [532, 532])).toMatch(/^B better/);
    // a line printed again (one per inner round) keeps its direction under its " (2)"
    expect(verdict('hearth MQTT @#/s: Hearth µs CPU (2)', [25.65, 25.65], [36.1, 36.1])).toMatch(/^B worse/);
    // throughput, and "by CPU" (the baseline's CPU over Hearth's): higher is better
    expect(verdict('hearth / bare aedes events/s', [1, 1], [1.2, 1.2])).toMatch(/^B better/);
    expect(verdict('hearth / bare aedes · by CPU per message', [0.6, 0.6], [0.7, 0.7])).toMatch(/^B better/);
    expect(verdict('hearth / bare aedes at 1,000: connects/s', [1, 1], [0.8, 0.8])).toMatch(/^B worse/);
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
