// A worker process for the exactly-once tick test: opens the given SQLite file and fires due
// reports in a tight loop until its stdin closes; then prints how many it fired.
// Usage: tsx tick-child.ts <db file> <owner>
import { createSqlStore } from '../../../src/adapters/sql/store.js';
import { createLocalBus } from '../../../src/adapters/local/bus.js';
import { systemClock } from '../../../src/ports/clock.js';
import { fireDueReports } from '../../../src/domain/report/index.js';

const [file, owner] = process.argv.slice(2);
const store = await createSqlStore({ url: file });
const deps = { store, bus: createLocalBus(), clock: systemClock };
let stop = false;
process.stdin.on('end', () => (stop = true));
process.stdin.resume();
process.stdout.write('ready\n');
let fired = 0;
// only a bound for an orphan: the test ends it through stdin (30 s was less than a loaded
// machine can take between this child's start and the other's)
const deadline = Date.now() + 300_000;
while (!stop && Date.now() < deadline) {
  fired += await fireDueReports({ deps, input: { owner } });
  await new Promise((r) => setTimeout(r, 1));
}
process.stdout.write(JSON.stringify({ owner, fired }) + '\n');
await store.close();
