// What the edge records of every answered request: its metrics, and (docs/operations.md#logs)
// the access log line of every authenticated request, under its project.
import type { Context } from 'hono';
import { callerProjectId } from '../../domain/auth/caller.js';
import { isoTime, loggablePath } from '../access-log.js';
import { clientIp } from '../client-ip.js';
import type { ApiDeps, HttpEnv } from '../env.js';

export function recorder(deps: Pick<ApiDeps, 'metrics' | 'accessLog' | 'clock'>): (c: Context<HttpEnv>, status: number, latencyMs: number) => void {
  const { metrics, accessLog, clock } = deps;
  return (c, status, latencyMs) => {
    const method = c.req.method;
    metrics.record(c.get('op')?.operationId ?? 'unmatched', method, status, latencyMs / 1000);
    const caller = c.get('caller');
    const projectId = callerProjectId(caller);
    if (projectId === undefined) return;
    accessLog.record({
      projectId,
      clientIp: caller.ip ?? clientIp(c),
      latency: Math.round(latencyMs * 1e6),
      method,
      path: loggablePath(c.req.path),
      statusCode: status,
      timestamp: isoTime(clock.now()),
    });
  };
}
