// The Queue contract against PostgreSQL, only when HEARTH_TEST_DATABASE_URL is set: each test in
// a schema of its own (`hearth_test_<random>`), which its cleanup drops (and no other).
import { describe } from 'vitest';
import { queueContract } from './queue.js';
import { makePostgresStore, testDatabaseUrl } from '../helpers/db.js';

describe.skipIf(!testDatabaseUrl)('postgres', () => {
  queueContract('postgres', () => makePostgresStore(testDatabaseUrl ?? ''));
});
