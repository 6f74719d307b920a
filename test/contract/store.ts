// The Store contract suite, in the manner of aedes-persistence's abstract.js: every adapter of
// the Store port runs it through `storeContract(name, make)`, against a real database.
// `make` builds a fresh, empty store; each test gets its own and its cleanup runs when the test
// finishes (onTestFinished), so no test depends on what another left behind.
// It tests the port's behaviour only: nothing here knows about SQL.
import { describe } from 'vitest';
import type { MakeStore } from './store/fixtures.js';
import { projectsContract } from './store/projects.js';
import { usersContract } from './store/users.js';
import { homesContract } from './store/homes.js';
import { catalogContract } from './store/catalog.js';
import { devicesContract } from './store/devices.js';
import { devicesListContract } from './store/devices.list.js';
import { provisioningContract } from './store/provisioning.js';
import { streamTicketsContract } from './store/stream-tickets.js';
import { kvContract } from './store/kv.js';
import { kvLimitsContract } from './store/kv.limits.js';
import { accessLogsContract } from './store/access-logs.js';
import { logsContract } from './store/logs.js';
import { transactionContract } from './store/transaction.js';
import { tsdbContract } from './store/tsdb.js';
import { commandsContract } from './store/commands.js';
import { deviceCertificatesContract } from './store/device-certificates.js';
import { rolloutsContract } from './store/rollouts.js';

export type { MakeStore } from './store/fixtures.js';

export function storeContract(name: string, make: MakeStore): void {
  describe(`Store contract: ${name}`, () => {
    projectsContract(make);
    usersContract(make);
    homesContract(make);
    catalogContract(make);
    devicesContract(make);
    devicesListContract(make);
    provisioningContract(make);
    streamTicketsContract(make);
    kvContract(make);
    kvLimitsContract(make);
    accessLogsContract(make);
    logsContract(make);
    transactionContract(make);
    tsdbContract(make);
    commandsContract(make);
    deviceCertificatesContract(make);
    rolloutsContract(make);
  });
}
