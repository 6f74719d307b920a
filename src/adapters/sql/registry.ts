// The registry's repositories (projects, API keys, users, sessions, homes, members, device
// classes, provisioning tokens, bundles), each in the file named after its port file, assembled
// here for createSqlStore.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { Store } from '../../ports/store.js';
import { apiKeyRepo, projectRepo } from './projects.js';
import { sessionRepo, userRepo } from './users.js';
import { homeRepo, memberRepo } from './homes.js';
import { deviceClassRepo } from './devices.js';
import { provisioningTokenRepo } from './provisioning.js';
import { bundleRepo } from './bundles.js';
import type { RawSqlite } from './sqlite-raw.js';

export function registryRepos(
  db: Kysely<Database>,
  dialect: 'sqlite' | 'postgres',
  raw?: RawSqlite,
): Pick<Store, 'projects' | 'apiKeys' | 'users' | 'sessions' | 'homes' | 'members' | 'deviceClasses' | 'provisioningTokens' | 'bundles'> {
  return {
    projects: projectRepo(db, dialect),
    apiKeys: apiKeyRepo(db),
    users: userRepo(db),
    sessions: sessionRepo(db),
    homes: homeRepo(db),
    members: memberRepo(db),
    deviceClasses: deviceClassRepo(db, raw),
    provisioningTokens: provisioningTokenRepo(db),
    bundles: bundleRepo(db),
  };
}
