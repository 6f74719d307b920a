// The general log (docs/operations.md#logs): what an operator wants to know. Writing it never fails
// the operation that reports something.
import type { Deps, StoreOf, SystemArgs } from '../deps.js';
import type { Caller } from '../caller.js';
import { logCaller } from '../caller.js';

export const LEVEL = { debug: 0, info: 1, warn: 2, error: 3 } as const;
export type LogSource = 'api' | 'broker' | 'webhooks' | 'reports' | 'worker' | 'admin' | 'data';

/** `caller` is who the line is about (recorded with it), not who may write it */
export type LogEntry = { projectId: number | null; caller?: Caller; level: keyof typeof LEVEL; source: LogSource; text: string };

export async function writeLog({ deps, input: entry }: SystemArgs<Pick<Deps, 'clock'> & StoreOf<'logs'>, LogEntry>): Promise<void> {
  try {
    await deps.store.logs.insert({
      projectId: entry.projectId,
      caller: entry.caller ? logCaller(entry.caller) : null,
      level: LEVEL[entry.level],
      source: entry.source,
      text: entry.text,
      timestamp: deps.clock.now().toISOString(),
    });
  } catch {
    // the store is down: the operation itself will report that if it matters
  }
}
