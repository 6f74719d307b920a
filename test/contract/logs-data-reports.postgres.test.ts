// The log request / data / report repositories against PostgreSQL, only when
// HEARTH_TEST_DATABASE_URL is set: each test gets a schema of its own, dropped by its cleanup.
import { describe } from 'vitest';
import { logsDataReportsContract } from './logs-data-reports.js';
import { makePostgresStore, testDatabaseUrl } from '../helpers/db.js';

describe.skipIf(!testDatabaseUrl)('postgres', () => {
  logsDataReportsContract('postgres', () => makePostgresStore(testDatabaseUrl!));
});
