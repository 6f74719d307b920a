// Contract suite for the repositories of device log requests, data sources and records, scheduled
// reports and runs, report data and retention: every Store adapter runs it against a real database.
import { describe } from 'vitest';
import type { MakeStore } from './store/fixtures.js';
import { logRequestsContract } from './logs-data-reports/log-requests.js';
import { dataContract } from './logs-data-reports/data.js';
import { reportsContract } from './logs-data-reports/reports.js';

export function logsDataReportsContract(name: string, make: MakeStore): void {
  describe(`Store contract (log requests, data, reports): ${name}`, () => {
    logRequestsContract(make);
    dataContract(make);
    reportsContract(make);
  });
}
