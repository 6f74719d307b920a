// The simulator's command line: defaults, the broker URL derived from --url, the key file, and a
// clear message for each bad value; --firmware's share of failing updates.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseOptions as parse, sourceAddress, type SimOptions } from '../../scripts/simulate/options.js';
import { FailShare, parseUpdate } from '../../scripts/simulate/firmware.js';

const parseOptions = (argv: string[], cwd?: string) => parse(argv, cwd) as SimOptions;

describe('simulator options', () => {
  it('defaults, with the key read from ./data/admin.key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-opts-'));
    try {
      mkdirSync(join(dir, 'data'));
      writeFileSync(join(dir, 'data', 'admin.key'), 'pk.from-file\n');
      expect(parseOptions([], dir)).toMatchObject({
        url: 'http://127.0.0.1:8080',
        key: 'pk.from-file',
        mqtt: 'mqtt://127.0.0.1:1883',
        transport: 'mqtt',
        devices: 10,
        rate: 10,
        deviceClass: 'default',
        prefix: 'sim-',
        tag: 'simulator',
        duration: undefined,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('derives the broker from --url and --transport', () => {
    const k = ['--key', 'pk.x'];
    expect(parseOptions([...k, '--url', 'http://hearth.example:9000/']).mqtt).toBe('mqtt://hearth.example:1883');
    expect(parseOptions([...k, '--url', 'https://hearth.example', '--transport', 'ws']).mqtt).toBe('wss://hearth.example/mqtt');
    expect(parseOptions([...k, '--url', 'http://[::1]:8080', '--transport', 'ws']).mqtt).toBe('ws://[::1]:8080/mqtt');
    expect(parseOptions([...k, '--mqtt', 'mqtts://b.example:8883']).mqtt).toBe('mqtts://b.example:8883');
    expect(parseOptions([...k, '--devices', '500', '--rate', '200', '--duration', '2.5'])).toMatchObject({ devices: 500, rate: 200, duration: 2.5 });
  });

  it('takes --home and --source-addresses (broker on loopback), and spreads connections round robin', () => {
    const k = ['--key', 'pk.x'];
    expect(parseOptions([...k, '--home', '7', '--source-addresses', '3'])).toMatchObject({ home: 7, sourceAddresses: 3, mqtt: 'mqtt://127.0.0.1:1883' });
    expect(parseOptions([...k, '--source-addresses', '254', '--mqtt', 'ws://localhost:8080/mqtt']).sourceAddresses).toBe(254);
    expect(parseOptions(k)).toMatchObject({ home: undefined, sourceAddresses: undefined });
    expect([0, 1, 2, 3, 4].map((n) => sourceAddress(n, 3))).toEqual(['127.0.0.1', '127.0.0.2', '127.0.0.3', '127.0.0.1', '127.0.0.2']);
  });

  it('takes --firmware and --firmware-fail, and fails that share of updates evenly', () => {
    const k = ['--key', 'pk.x'];
    expect(parseOptions(k)).toMatchObject({ firmware: false, firmwareFail: 0 });
    expect(parseOptions([...k, '--firmware'])).toMatchObject({ firmware: true, firmwareFail: 0 });
    expect(parseOptions([...k, '--firmware', '--firmware-fail', '25'])).toMatchObject({ firmware: true, firmwareFail: 25 });
    for (const [percent, n, failed] of [
      [0, 10, 0],
      [30, 10, 3],
      [25, 20, 5],
      [100, 7, 7],
      [33, 100, 33],
    ]) {
      const share = new FailShare(percent);
      const fails = Array.from({ length: n }, () => share.next());
      expect(fails.filter(Boolean).length, `${percent}% of ${n}`).toBe(failed);
    }
    // spread, not bunched: 50 % alternates
    const half = new FailShare(50);
    expect(Array.from({ length: 6 }, () => half.next())).toEqual([false, true, false, true, false, true]);
  });

  it('reads the parameters of a firmware-update command, or says why not', () => {
    const components = [{ componentName: 'main', componentVersionName: '2.0', url: '/bundles/b/components/main/file', sha256: 'ab', size: 2 }];
    expect(parseUpdate({ rolloutId: 'r1', bundleId: 'b', components })).toEqual({ rolloutId: 'r1', bundleId: 'b', components });
    expect(parseUpdate(null)).toBe('parameters are not an object');
    expect(parseUpdate({ components })).toBe('parameters.bundleId is missing');
    expect(parseUpdate({ bundleId: 'b' })).toBe('parameters.components is not a list');
    expect(parseUpdate({ bundleId: 'b', components: [{}] })).toBe('a component has no componentName');
  });

  it('explains each bad value', () => {
    const k = ['--key', 'pk.x'];
    const cases: [string[], RegExp][] = [
      [['--devices', '0'], /--devices must be a whole number from 1 to 100000, got "0"/],
      [['--devices', '2.5'], /--devices must be a whole number/],
      [['--rate', 'fast'], /--rate must be a number of messages per second/],
      [['--data-share', '2'], /--data-share must be a number from 0 to 1/],
      [['--transport', 'tcp'], /--transport must be mqtt or ws, got "tcp"/],
      [['--url', 'ftp://x'], /--url must be an http\(s\) URL/],
      [['--home', '0'], /--home must be a home id, got "0"/],
      [['--source-addresses', '0'], /--source-addresses must be a whole number from 1 to 254, got "0"/],
      [['--source-addresses', '255'], /--source-addresses must be a whole number from 1 to 254/],
      [['--source-addresses', '2.5'], /--source-addresses must be a whole number/],
      [['--source-addresses', '4', '--mqtt', 'mqtt://10.0.0.5:1883'], /--source-addresses uses the local addresses 127\.0\.0\.x.*the broker is 10\.0\.0\.5/],
      [['--source-addresses', '4', '--url', 'http://hearth.example:8080'], /only reach a broker on this machine's loopback; the broker is hearth\.example/],
      [['--firmware', '--firmware-fail', '101'], /--firmware-fail must be a percent from 0 to 100, got "101"/],
      [['--firmware', '--firmware-fail', 'some'], /--firmware-fail must be a percent/],
      [['--firmware-fail', '20'], /--firmware-fail needs --firmware/],
      [['--frob'], /Unknown option '--frob'/],
      [['extra'], /Unexpected argument 'extra'/],
    ];
    for (const [args, message] of cases) expect(() => parseOptions([...k, ...args]), args.join(' ')).toThrow(message);
    const empty = mkdtempSync(join(tmpdir(), 'sim-opts-'));
    try {
      expect(() => parseOptions([], empty)).toThrow(/no --key given and no \.\/data\/admin\.key here/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
