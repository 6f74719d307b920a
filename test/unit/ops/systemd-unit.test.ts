// config/hearth.service (docs/operations.md#running-under-systemd): systemd itself accepts the unit
// with no warning (`systemd-analyze verify`, where systemd is installed), and it says what the docs
// say: node on the built server directly, SIGHUP on reload, a restart policy, the open-files limit.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';

const UNIT = readFileSync(join(resolve(import.meta.dirname, '../../..'), 'config/hearth.service'), 'utf8');
const hasSystemd = spawnSync('sh', ['-c', 'command -v systemd-analyze']).status === 0;

function settings(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (m) out.set(m[1], m[2]);
  }
  return out;
}

const verify = (file: string) => spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8', timeout: 60_000 });

describe('config/hearth.service', () => {
  it('runs node on dist/src/main.js directly, reloads with SIGHUP, restarts on failure, lifts the open-files limit', () => {
    const s = settings(UNIT);
    expect(s.get('ExecStart')).toMatch(/^\/usr\/bin\/node dist\/src\/main\.js$/);
    expect(s.get('ExecReload')).toBe('/bin/kill -HUP $MAINPID');
    expect(s.get('Restart')).toBe('on-failure');
    expect(Number(s.get('LimitNOFILE'))).toBeGreaterThanOrEqual(65_536);
  });

  it.skipIf(!hasSystemd)('passes systemd-analyze verify with no warning, which a broken copy does not', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-unit-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    // systemd checks that ExecStart's program exists: this machine's node stands in for /usr/bin/node
    const unit = UNIT.replace('/usr/bin/node ', `${process.execPath} `);
    const good = join(dir, 'hearth.service');
    writeFileSync(good, unit);
    const r = verify(good);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr.trim()).toBe('');
    // the check can fail: a bad value is named on stderr
    const bad = join(dir, 'bad.service');
    writeFileSync(bad, unit.replace(/^LimitNOFILE=.*$/m, 'LimitNOFILE=lots'));
    expect(verify(bad).stderr).toMatch(/bad\.service:\d+: Failed to parse resource value, ignoring: lots/);
  });
});
