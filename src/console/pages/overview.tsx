// Overview: devices in all and connected now, events per minute over the last 30 minutes (live),
// webhook deliveries of the last hour, and the latest general-log warnings.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { get, list, qs, session } from '../api';
import { onEvent } from '../stream';
import { Chart } from '../chart';
import { ErrorBox, Section, useLoad, when } from '../ui';

interface LogEntry {
  timestamp: string;
  level: number;
  source: string;
  text: string;
}
const MINUTES = 30;

export function Overview() {
  const projectId = session()!.projectId;
  const counts = useLoad(async () => {
    const [all, connected] = await Promise.all([list(`/devices${qs({ projectId })}`, 0, 1), list(`/devices${qs({ projectId, isConnected: true })}`, 0, 1)]);
    return { total: all.total, connected: connected.total };
  }, [projectId]);
  const deliveries = useLoad(async () => {
    const since = new Date(Date.now() - 3600_000).toISOString();
    const modules = await get<{ id: string }[]>(`/projects/${projectId}/smartModules`);
    let success = 0;
    let failed = 0;
    for (const m of modules) {
      const base = `/projects/${projectId}/smartModules/${encodeURIComponent(m.id)}/deliveries`;
      const [s, f] = await Promise.all([list(`${base}${qs({ status: 'success', since })}`, 0, 1), list(`${base}${qs({ status: 'failed', since })}`, 0, 1)]);
      success += s.total;
      failed += f.total;
    }
    return { success, failed, modules: modules.length };
  }, [projectId]);
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
  useEffect(
    () =>
      onEvent((e) => {
        const minute = Math.floor(Date.parse(e.timestamp ?? new Date().toISOString()) / 60_000);
        setBuckets((old) => new Map(old).set(minute, (old.get(minute) ?? 0) + 1));
        if (e.eventType === '_deviceConnected_' || e.eventType === '_deviceDisconnected_') counts.reload();
      }),
    [],
  );
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
          <span class="n ok">{deliveries.data?.success ?? '…'}</span>
          <span>webhook deliveries succeeded (1 h)</span>
        </div>
        <div class="tile">
          <span class="n bad">{deliveries.data?.failed ?? '…'}</span>
          <span>failed (1 h)</span>
        </div>
      </div>
      <ErrorBox error={counts.error ?? deliveries.error} />
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
