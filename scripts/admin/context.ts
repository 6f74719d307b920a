// What the admin CLI works on: the server's own data (HEARTH_DATA_DIR / HEARTH_DATABASE_URL, read
// through loadConfig like the server) and the same server secret, so device keys it seals can be
// read back by the server. It acts as an admin key of the project it is told about.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { createSqlStore } from '../../src/adapters/sql/store.js';
import { createLocalBus } from '../../src/adapters/local/bus.js';
import { systemClock } from '../../src/ports/clock.js';
import type { Deps } from '../../src/domain/deps.js';
import type { Caller } from '../../src/domain/auth/caller.js';
import { AppError } from '../../src/domain/errors.js';

/** the same rule as main.ts: configured, else the file in the data directory (created once) */
function serverSecret(config: Config): string {
  if (config.secret) return config.secret;
  const file = join(config.dataDir, 'secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}

export interface AdminContext {
  deps: Deps;
  /** an admin caller of an existing project (PROJECT_NOT_FOUND otherwise) */
  adminOf(projectId: number): Promise<Caller>;
  close(): Promise<void>;
}

export async function openContext(env: NodeJS.ProcessEnv = process.env): Promise<AdminContext> {
  const config = loadConfig(env);
  mkdirSync(config.dataDir, { recursive: true });
  const store = await createSqlStore({ url: config.databaseUrl ?? join(config.dataDir, 'hearth.db'), schema: config.databaseSchema ?? undefined });
  // offline: a bus of our own. Revocations reach no running server's live connections (README).
  const bus = createLocalBus();
  const deps: Deps = {
    store,
    bus,
    clock: systemClock,
    secret: serverSecret(config),
    limits: config.limits,
    sessionTtlSeconds: config.sessions.ttlSeconds,
    provisioningTtlSeconds: config.provisioning.ttlSeconds,
  };
  return {
    deps,
    async adminOf(projectId) {
      if (!(await store.projects.get(projectId))) throw new AppError('PROJECT_NOT_FOUND', { projectId });
      return { type: 'project key', projectId, keyId: 'admin-cli', keyName: 'admin CLI', scopes: ['admin'] };
    },
    async close() {
      await bus.close();
      await store.close();
    },
  };
}
