// scripts/bench/fleet-heap.ts end to end at a tiny size (20 devices), so the tool cannot rot: both
// servers are measured, and the snapshots' side-by-side table names what each keeps per device.
// Only counts that do not depend on speed or load are checked: Hearth keeps one session per
// connected device, bare Aedes none; both keep one Aedes client each.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'hearth-fleet-heap-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((res) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench/fleet-heap.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => res({ code, out }));
  });
}

/** the table row of one owner: bytes and objects per device, Hearth's and bare Aedes's */
function row(out: string, owner: string): { hearthCount: number; aedesCount: number } | undefined {
  const m = new RegExp(`^ *-?[\\d.]+ +-?[\\d.]+ +-?[\\d.]+ +(-?[\\d.]+) +(-?[\\d.]+)  ${owner}$`, 'm').exec(out);
  return m ? { hearthCount: Number(m[1]), aedesCount: Number(m[2]) } : undefined;
}

describe('scripts/bench/fleet-heap.ts', () => {
  it('snapshots both servers and sets what they keep per device side by side', { timeout: 300_000 }, async () => {
    const { code, out } = await run([dir, '20']);
    expect(code, out).toBe(0);
    for (const target of ['hearth', 'aedes'])
      expect(out).toMatch(new RegExp(`^${target}: 20 devices up; per device KiB: rss -?[\\d.]+, heap used .*by mapping brk`, 'm'));
    expect(readdirSync(dir).sort()).toEqual([
      'aedes-after.heapsnapshot',
      'aedes-before.heapsnapshot',
      'hearth-after.heapsnapshot',
      'hearth-before.heapsnapshot',
    ]);
    expect(out).toMatch(/^live objects grown per device: hearth \d+ B, bare aedes \d+ B/m);
    // the session is Hearth's alone: one per connected device
    expect(row(out, 'object DeviceSession'), out).toEqual({ hearthCount: 1, aedesCount: 0 });
  });

  it('with `-` takes no snapshot and still reads both servers', { timeout: 300_000 }, async () => {
    const { code, out } = await run(['-', '20']);
    expect(code, out).toBe(0);
    for (const target of ['hearth', 'aedes']) expect(out).toMatch(new RegExp(`^${target}: 20 devices up; .*; no snapshots$`, 'm'));
    expect(out).not.toMatch(/live objects grown per device/);
  });
});
