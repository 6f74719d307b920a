// Overview: devices in all and connected now, events per minute over the last 30 minutes (live),
// webhook deliveries (succeeded, failed and dropped in the last hour, retrying now, and which
// modules have them), and the latest general-log warnings.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { get, list, qs, session } from '../api';
import { onEvent } from '../stream';
import { href } from '../router';
import { Chart } from '../chart';
import { ErrorBox, Section, useCoalesced, useLoad, when } from '../ui';

interface LogEntry {
  timestamp: string;
  level: number;
  source: string;
  text: string;
}
const MINUTES = 30;

interface Webhook {
  enabled?: boolean;
  disabledTime?: string;
  disabledReason?: string;
}
interface ModuleFigures {
  id: string;
  success: number;
  failed: number;
  dropped: number;
  /** waiting for their next attempt now: the first, or a retry after an error (docs/webhooks.md#retries) */
  retrying: number;
  disabled: { webhook: string; since?: string; reason?: string }[];
}

/**
 * The delivery log's figures per module, each read once as a count (limit 1, the total from the
 * range header): success, failed and dropped created in the last hour, and pending now whatever
 * its age (a delivery retried for a day is still failing). Modules are read in parallel.
 */
async function deliveryFigures(projectId: number): Promise<{ modules: ModuleFigures[]; success: number; failed: number; dropped: number; retrying: number }> {
  const since = new Date(Date.now() - 3600_000).toISOString();
  const modules = await get<{ id: string; eventWebhook?: Webhook | null; commandWebhook?: Webhook | null }[]>(`/projects/${projectId}/smartModules`);
  const count = async (id: string, status: string, from?: string) =>
    (await list(`/projects/${projectId}/smartModules/${encodeURIComponent(id)}/deliveries${qs({ status, since: from })}`, 0, 1)).total;
  const figures = await Promise.all(
    modules.map(async (m): Promise<ModuleFigures> => {
      const [success, failed, dropped, retrying] = await Promise.all([
        count(m.id, 'success', since),
        count(m.id, 'failed', since),
        count(m.id, 'dropped', since),
        count(m.id, 'pending'),
      ]);
      const disabled = (
        [
          ['event webhook', m.eventWebhook],
          ['command webhook', m.commandWebhook],
        ] as const
      )
        .filter(([, w]) => w && w.enabled === false)
        .map(([webhook, w]) => ({ webhook, since: w!.disabledTime, reason: w!.disabledReason }));
      return { id: m.id, success, failed, dropped, retrying, disabled };
    }),
  );
  const sum = (k: 'success' | 'failed' | 'dropped' | 'retrying') => figures.reduce((n, f) => n + f[k], 0);
  return { modules: figures, success: sum('success'), failed: sum('failed'), dropped: sum('dropped'), retrying: sum('retrying') };
}

export function Overview() {
  const projectId = session()!.projectId;
  const counts = useLoad(async () => {
    const [all, connected] = await Promise.all([list(`/devices${qs({ projectId })}`, 0, 1), list(`/devices${qs({ projectId, isConnected: true })}`, 0, 1)]);
    return { total: all.total, connected: connected.total };
  }, [projectId]);
  const deliveries = useLoad(() => deliveryFigures(projectId), [projectId]);
  const warnings = useLoad(() => list<LogEntry>(`/logs${qs({ projectId, level: 2 })}`, 0, 8), [projectId]);

  // events per minute: history of the last 30 minutes, then counted live from the stream
  const [buckets, setBuckets] = useState<Map<number, number>>(new Map());
  const history = useLoad(async () => {
    const since = new Date(Date.now() - MINUTES * 60_000).toISOString();
    const page = await list<{ timestamp: string }>(`/events${qs({ projectId, since })}`, 0, 10_000);
    const m = new Map<number, number>();
    for (const e of page.items) {
      const minute = Math.floor(Date.parse(e.timestamp) / 60_000);
      m.set(minute, (m.get(minute) ?? 0) + 1);
    }
    setBuckets(m);
    return page.total;
  }, [projectId]);
  // a fleet connecting at once asks for the counts once at a time, not once per device
  const recount = useCoalesced(counts.reload, counts.loading);
  useEffect(
    () =>
      onEvent((e) => {
        const minute = Math.floor(Date.parse(e.timestamp ?? new Date().toISOString()) / 60_000);
        setBuckets((old) => new Map(old).set(minute, (old.get(minute) ?? 0) + 1));
        if (e.eventType === '_deviceConnected_' || e.eventType === '_deviceDisconnected_') recount();
      }),
    [],
  );
  const troubled = deliveries.data?.modules.filter((m) => m.failed + m.dropped + m.retrying > 0 || m.disabled.length > 0) ?? [];
  const data = useMemo(() => {
    const now = Math.floor(Date.now() / 60_000);
    const xs: number[] = [];
    const ys: number[] = [];
    for (let m = now - MINUTES + 1; m <= now; m++) {
      xs.push(m * 60);
      ys.push(buckets.get(m) ?? 0);
    }
    return [xs, ys] as [number[], number[]];
  }, [buckets]);

  return (
    <div class="page">
      <h1>Overview</h1>
      <div class="tiles">
        <div class="tile">
          <span class="n" data-metric="devices-total">
            {counts.data?.total ?? '…'}
          </span>
          <span>devices</span>
        </div>
        <div class="tile">
          <span class="n" data-metric="devices-connected">
            {counts.data?.connected ?? '…'}
          </span>
          <span>connected now</span>
        </div>
        <div class="tile">
          <span class="n ok" data-metric="deliveries-succeeded">
            {deliveries.data?.success ?? '…'}
          </span>
          <span>webhook deliveries succeeded (1 h)</span>
        </div>
        <div class="tile">
          <span class={deliveries.data?.retrying ? 'n warn' : 'n'} data-metric="deliveries-retrying">
            {deliveries.data?.retrying ?? '…'}
          </span>
          <span>waiting or retrying now</span>
        </div>
        <div class="tile">
          <span class={deliveries.data?.failed ? 'n bad' : 'n'} data-metric="deliveries-failed">
            {deliveries.data?.failed ?? '…'}
          </span>
          <span>failed (1 h)</span>
        </div>
        <div class="tile">
          <span class={deliveries.data?.dropped ? 'n bad' : 'n'} data-metric="deliveries-dropped">
            {deliveries.data?.dropped ?? '…'}
          </span>
          <span>dropped: template errors (1 h)</span>
        </div>
      </div>
      <ErrorBox error={counts.error ?? deliveries.error} />
      {troubled.length > 0 ? (
        <Section
          title="Webhooks in trouble"
          actions={
            <button type="button" onClick={deliveries.reload} disabled={deliveries.loading}>
              Refresh
            </button>
          }
        >
          <ul class="plain">
            {troubled.map((m) => (
              <li key={m.id} data-troubled-module={m.id}>
                <a href={href(`modules/${encodeURIComponent(m.id)}`)}>{m.id}</a>{' '}
                {[
                  m.retrying ? `${m.retrying} waiting or retrying` : '',
                  m.failed ? `${m.failed} failed (1 h)` : '',
                  m.dropped ? `${m.dropped} dropped (1 h)` : '',
                  ...m.disabled.map((d) => `${d.webhook} turned off${d.since ? ` since ${when(d.since)}` : ''}${d.reason ? `: ${d.reason}` : ''}`),
                ]
                  .filter(Boolean)
                  .join(' · ')}
              </li>
            ))}
          </ul>
        </Section>
      ) : null}
      <Section title="Events per minute">
        <Chart title="events per minute, last 30 minutes" labels={['events']} data={data} />
        <ErrorBox error={history.error} />
      </Section>
      <Section title="Recent warnings" actions={<a href="#/logs">All logs</a>}>
        <ErrorBox error={warnings.error} />
        {warnings.data?.items.length === 0 ? <p class="muted">No warnings.</p> : null}
        <ul class="log">
          {warnings.data?.items.map((l, i) => (
            <li key={i}>
              <time>{when(l.timestamp)}</time> <span class="tag">{l.source}</span> {l.text}
            </li>
          ))}
        </ul>
      </Section>
    </div>
  );
}
