// Start-up refuses a half-configured cluster with one line naming the setting to change.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startOwnRedis } from '../../helpers/redis-server.js';
import { dropSchema, freshSchemaName, testDatabaseUrl } from '../../helpers/db.js';

const ROOT = resolve(import.meta.dirname, '../../..');

function start(env: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-mode-'));
  try {
    return spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: ROOT,
      env: { ...process.env, HEARTH_DATA_DIR: dataDir, HEARTH_HTTP_PORT: '0', HEARTH_MQTT_PORT: '0', HEARTH_HOST: '127.0.0.1', ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('cluster mode start-up checks', () => {
  it('refuses a process with only some roles and no Redis/PostgreSQL, naming HEARTH_ROLES', () => {
    const r = start({ HEARTH_ROLES: 'api' });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^HEARTH_ROLES=api runs part of Hearth.*HEARTH_REDIS_URL and HEARTH_DATABASE_URL/);
  });

  it('refuses Redis without PostgreSQL, naming HEARTH_DATABASE_URL', () => {
    const r = start({ HEARTH_REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^HEARTH_DATABASE_URL: cluster mode .*needs PostgreSQL/);
  });

  it('refuses cluster mode without a configured secret, naming HEARTH_SECRET', () => {
    // each node would otherwise generate its own, and none could read what another sealed
    const r = start({ HEARTH_REDIS_URL: 'redis://127.0.0.1:6379', HEARTH_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^HEARTH_SECRET: cluster mode .*same secret on every node/);
  });

  it.skipIf(!testDatabaseUrl)(
    'names HEARTH_REDIS_URL when Redis cannot be reached',
    async () => {
      const redis = await startOwnRedis();
      await redis.stop(); // a port nobody listens on
      const schema = freshSchemaName();
      try {
        const r = start({
          HEARTH_REDIS_URL: redis.url,
          HEARTH_DATABASE_URL: testDatabaseUrl!,
          HEARTH_DATABASE_SCHEMA: schema,
          HEARTH_SECRET: 'one-secret-for-every-node',
        });
        expect(r.status).toBe(1);
        expect(r.stderr.trim()).toMatch(/^HEARTH_REDIS_URL: cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+/);
      } finally {
        await dropSchema(testDatabaseUrl!, schema);
      }
    },
    90_000,
  );
});
