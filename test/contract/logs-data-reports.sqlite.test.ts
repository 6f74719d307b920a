// The log request / data / report repositories against SQLite: a new database file per test.
import { logsDataReportsContract } from './logs-data-reports.js';
import { makeSqliteStore } from '../helpers/db.js';

logsDataReportsContract('sqlite', makeSqliteStore);
