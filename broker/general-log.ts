// The broker's lines in the general log (docs/operations.md#logs: rejected device connections, dropped MQTT
// payloads). Writing never fails the connection that caused it.
import type { Caller } from '../src/domain/caller.js';
import { writeLog } from '../src/domain/log/write.js';
import type { BrokerCore } from './core.js';

/** topics and payload excerpts are client text: keep log lines short */
export const clip = (s: string, n = 200): string => (s.length > n ? `${s.slice(0, n)}…` : s);

export function brokerLog(ctx: BrokerCore, projectId: number | null, caller: Caller | undefined, level: 'info' | 'warn', text: string): void {
  ctx.deps.logger.debug({ projectId, caller: caller?.type === 'device' ? caller.deviceId : undefined }, text);
  if (projectId === null) return; // nobody could read it: no project to file it under
  void writeLog({ deps: ctx.deps, input: { projectId, caller, level, source: 'broker', text } });
}
