// The Queue contract against SQLite: a new database file per test, removed by its cleanup.
import { queueContract } from './queue.js';
import { makeSqliteStore } from '../helpers/db.js';

queueContract('sqlite', makeSqliteStore);
