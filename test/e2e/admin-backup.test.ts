// `backup` while a real server takes events, then `restore` into a new data directory: every event
// the server acknowledged (204) before the backup started is in the restored database, nothing is
// there that was never sent, and the restored server reads back the device key it sealed (the
// backup carried the data directory's generated secret). The CLI runs as operators run it, a
// child process on the server's data directory.
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestHearth, type TestHearth } from '../helpers/hearth.js';
import { cli, withoutHearthSettings } from '../helpers/admin-cli.js';

const SLOW = { timeout: 240_000 };

describe('admin CLI backup and restore', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'hearth-backup-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('restores a backup taken under load with every acknowledged event', SLOW, async () => {
    // secret null: generated into the data directory, as a plain `npm start` does
    const th: TestHearth = await startTestHearth({ secret: null });
    let restored: TestHearth | undefined;
    const file = join(scratch, 'hearth.backup');
    const restoreDir = join(scratch, 'restored');
    let closed = false;
    let stop = false;
    let senders: Promise<unknown>[] = [];
    try {
      const dev = th.device;
      const acked = new Map<number, number>(); // seq -> when acknowledged (ms)
      const sent = new Set<number>();
      let seq = 0;
      const failures: string[] = [];
      const sender = async () => {
        while (!stop) {
          const n = ++seq;
          sent.add(n);
          const r = await th.http('PUT', `/devices/${dev.id}/event`, { token: dev.key, body: { eventType: 'tick', eventData: { seq: n } } });
          if (r.status === 204) acked.set(n, performance.now());
          else failures.push(`${n}: ${r.status} ${JSON.stringify(r.body)}`);
        }
      };
      senders = Array.from({ length: 4 }, () => sender().catch((e) => failures.push(String(e))));
      // (a refused event stops the wait at once: -1)
      await expect.poll(() => (failures.length > 0 ? -1 : acked.size), { timeout: 120_000 }).toBeGreaterThanOrEqual(200);

      const env = { ...withoutHearthSettings(), HEARTH_DATA_DIR: th.dataDir };
      const startedAt = performance.now();
      const ackedBefore = [...acked.keys()];
      // small steps, so that the server's commits land between them (and restart the copy)
      const r = await cli(() => env)('backup', file, '--pages-per-step', '2', '--json');
      const endedAt = performance.now();
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out).toMatchObject({ file, secret: expect.stringMatching(/^included/), pages: expect.any(Number) });
      expect(r.stderr).toMatch(/backup: 100% \(\d+\/\d+ pages\)/);
      // the load was on while the backup ran
      const during = [...acked.values()].filter((t) => t > startedAt && t < endedAt).length;
      expect(during).toBeGreaterThan(0);
      stop = true;
      await Promise.all(senders);
      expect(failures).toEqual([]);

      // a non-empty data directory is refused, and left as it was
      const refused = await cli(() => env)('restore', file);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/data directory .* is not empty .*restore only goes into an empty or new directory/);

      const back = await cli(() => ({ ...env, HEARTH_DATA_DIR: restoreDir }))('restore', file, '--json');
      expect(back.code, back.stderr).toBe(0);
      expect(JSON.parse(back.stdout)).toMatchObject({ dataDir: restoreDir, secret: 'restored' });
      expect(existsSync(join(restoreDir, 'secret'))).toBe(true);
      await th.close();
      closed = true;

      restored = await startTestHearth({ secret: null }, { dataDir: restoreDir });
      const { key } = await restored.seedProjectKey(['admin']);
      const seqs: number[] = [];
      for (let skip = 0; ; skip += 10_000) {
        const page = await restored.http('GET', `/events?projectId=1&deviceId=${dev.id}&eventType=tick&skip=${skip}&limit=10000`, { token: key });
        expect(page.status).toBe(200);
        seqs.push(...page.body.map((e: { eventData: { seq: number } }) => e.eventData.seq));
        if (page.body.length < 10_000) break;
      }
      const have = new Set(seqs);
      expect(have.size).toBe(seqs.length);
      expect(ackedBefore.filter((n) => !have.has(n))).toEqual([]);
      expect(seqs.filter((n) => !sent.has(n))).toEqual([]);
      // the device key sealed with the original secret reads back on the restored server
      const d = await restored.http('GET', `/devices/${dev.id}`, { token: key });
      expect(d.body.apiKey).toBe(dev.key);
    } finally {
      stop = true;
      await Promise.all(senders);
      if (!closed) await th.close();
      await restored?.close();
      rmSync(restoreDir, { recursive: true, force: true });
    }
  });
});
