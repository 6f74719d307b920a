// Overview: the fleet figures (GET /projects/{id}/stats: devices in all and connected now, events
// per minute over the last hour, deliveries succeeded and failed in the last hour, retrying now and
// the oldest pending age), events counted live from the stream; which modules have failing
// deliveries or were turned off; and the latest general-log warnings.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { get, list, qs, session } from '../api';
import { onEvent } from '../stream';
import { href } from '../router';
import { Chart } from '../chart';
import { ErrorBox, Section, useCoalesced, useLoad, usePoll, when } from '../ui';

interface LogEntry {
  timestamp: string;
  level: number;
  source: string;
  text: string;
}
/** the current minute and the 60 whole ones before it, as the stats count them */
const MINUTES = 61;

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

interface FleetStats {
  devices: { total: number; connected: number };
  events: { perMinute: { minute: string; count: number }[] };
  deliveries: { succeeded: number; failed: number; retrying: number; oldestPendingSeconds: number | null };
}

/** the stats are read again this often (besides on presence events), for the delivery figures the stream does not carry */
const REFRESH_MS = 60_000;

/** an age in seconds in the largest whole unit: `41 s`, `3 min`, `2 h`, `1 d` */
export function age(seconds: number | null | undefined): string {
  if (seconds === null) return '—';
  if (seconds === undefined) return '…';
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}

export function Overview() {
  const projectId = session()!.projectId;
  // the fleet figures (docs/api.md#fleet-figures): counted by the service as things happen, so
  // one small read at any fleet size; events arriving on the stream are added to their minute here
  const [buckets, setBuckets] = useState<Map<number, number>>(new Map());
  const stats = useLoad(async () => {
    const s = await get<FleetStats>(`/projects/${projectId}/stats`);
    setBuckets(new Map(s.events.perMinute.map((m) => [Math.floor(Date.parse(m.minute) / 60_000), m.count])));
    return s;
  }, [projectId]);
  const deliveries = useLoad(() => deliveryFigures(projectId), [projectId]);
  const warnings = useLoad(() => list<LogEntry>(`/logs${qs({ projectId, level: 2 })}`, 0, 8), [projectId]);

  // a fleet connecting at once asks for the figures once at a time, not once per device
  const refresh = useCoalesced(stats.reload, stats.loading);
  useEffect(
    () =>
      onEvent((e) => {
        const minute = Math.floor(Date.parse(e.timestamp ?? new Date().toISOString()) / 60_000);
        setBuckets((old) => new Map(old).set(minute, (old.get(minute) ?? 0) + 1));
        if (e.eventType === '_deviceConnected_' || e.eventType === '_deviceDisconnected_') refresh();
      }),
    [],
  );
  usePoll(refresh, true, REFRESH_MS);
  const counts = stats.data?.devices;
  const figures = stats.data?.deliveries;
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
  const hourTotal = data[1].reduce((n, c) => n + c, 0);
  const minuteTotal = data[1][data[1].length - 1];

  return (
    <div class="page">
      <h1>Overview</h1>
      <div class="tiles">
        <div class="tile">
          <span class="n" data-metric="devices-total">
            {counts?.total ?? '…'}
          </span>
          <span>devices</span>
        </div>
        <div class="tile">
          <span class="n" data-metric="devices-connected">
            {counts?.connected ?? '…'}
          </span>
          <span>connected now</span>
        </div>
        <div class="tile">
          <span class="n" data-metric="events-hour">
            {stats.data ? hourTotal : '…'}
          </span>
          <span>events (1 h)</span>
        </div>
        <div class="tile">
          <span class="n" data-metric="events-minute">
            {stats.data ? minuteTotal : '…'}
          </span>
          <span>events this minute</span>
        </div>
        <div class="tile">
          <span class="n ok" data-metric="deliveries-succeeded">
            {figures?.succeeded ?? '…'}
          </span>
          <span>webhook deliveries succeeded (1 h)</span>
        </div>
        <div class="tile">
          <span class={figures?.retrying ? 'n warn' : 'n'} data-metric="deliveries-retrying">
            {figures?.retrying ?? '…'}
          </span>
          <span>retrying now</span>
        </div>
        <div class="tile">
          <span class={figures?.oldestPendingSeconds ? 'n warn' : 'n'} data-metric="deliveries-oldest-pending">
            {age(figures?.oldestPendingSeconds)}
          </span>
          <span>oldest pending delivery</span>
        </div>
        <div class="tile">
          <span class={figures?.failed ? 'n bad' : 'n'} data-metric="deliveries-failed">
            {figures?.failed ?? '…'}
          </span>
          <span>failed (1 h, dropped included)</span>
        </div>
        <div class="tile">
          <span class={deliveries.data?.dropped ? 'n bad' : 'n'} data-metric="deliveries-dropped">
            {deliveries.data?.dropped ?? '…'}
          </span>
          <span>dropped: template errors (1 h)</span>
        </div>
      </div>
      <ErrorBox error={stats.error ?? deliveries.error} />
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
        <Chart title="events per minute, last hour" labels={['events']} data={data} />
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
