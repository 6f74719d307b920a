// The Queue contract (src/ports/queue.ts) and the modules repository, run against every SQL
// dialect through `queueContract(name, make)`, like the Store contract. Each test gets a fresh
// store and cleans it up. It checks behaviour only: claiming due rows under a lease, the lease as
// a fence, concurrent claimers never sharing a row, and an event with its deliveries committing
// (or not) together.
import { describe } from 'vitest';
import type { MakeStore } from './queue/fixtures.js';
import { recordsContract } from './queue/records.js';
import { leaseContract } from './queue/lease.js';

export type { MakeStore } from './queue/fixtures.js';

export function queueContract(name: string, make: MakeStore): void {
  describe(`Queue contract: ${name}`, () => {
    recordsContract(make);
    leaseContract(make);
  });
}
