// Loaded (node --import) into every Hearth process a test starts (process.ts): the process ends
// itself once the test process that started it is gone. A hook that times out while a cluster
// starts (helpers/cluster.ts) never gets the nodes to close, and the test worker's exit does not
// end its children: under load, five such nodes of one timed-out start ran on for the rest of
// the run, loading the machine every later test shares. The parent is named by the test (by the
// time a loaded machine runs this, it may be gone already).
const parent = Number(process.env.HEARTH_TEST_PARENT_PID) || process.ppid;
const check = () => {
  if (process.ppid !== parent) process.kill(process.pid, 'SIGKILL');
};
check();
setInterval(check, 500).unref();
