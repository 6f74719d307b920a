// The one polling wait of the test suite. A wait is for an event; its deadline only bounds a
// failure. A deadline a test names is raised to a floor, so a busy machine (a CPU hog beside the
// suite, a worker thread starting) does not fail it.

// Below the 30 s test timeout, so a missed event still fails with the message that names it.
export const MIN_WAIT_MS = 15_000;

/** polls fn until it returns a truthy value and returns that value; throws naming `what` after the deadline */
export async function eventually<T>(fn: () => Promise<T> | T, timeoutMs = MIN_WAIT_MS, what = 'condition', floorMs = MIN_WAIT_MS): Promise<T> {
  timeoutMs = Math.max(timeoutMs, floorMs);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
