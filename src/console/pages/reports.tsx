// Scheduled reports: create one, run it now, follow its runs and download an output.
import { useEffect, useState } from 'preact/hooks';
import { download, get, list, qs, send, session } from '../api';
import { ConfirmButton, ErrorBox, Field, Section, useAction, useLoad, when } from '../ui';

interface Report {
  id: string;
  name: string;
  kind: string;
  format: string;
  schedule: { cron: string; timezone: string };
  lastRunTime?: string;
  nextRunTime?: string;
}
interface Run {
  id: string;
  status: string;
  trigger: string;
  startTime?: string;
  endTime?: string;
  rows?: number;
  error?: string;
}

function Runs({ report }: { report: Report }) {
  const runs = useLoad(() => get<Run[]>(`/scheduledReports/${encodeURIComponent(report.id)}/runs`), [report.id]);
  const action = useAction();
  const pending = runs.data?.some((r) => r.status === 'queued' || r.status === 'running');
  // a run on its way is followed until it ends, as the delivery log follows a delivery
  useEffect(() => {
    if (!pending) return;
    const timer = setInterval(runs.reload, 2000);
    return () => clearInterval(timer);
  }, [pending]);
  return (
    <div class="runs">
      <button
        type="button"
        onClick={() => action.run(() => send('POST', `/scheduledReports/${encodeURIComponent(report.id)}/run`)).then(runs.reload)}
        disabled={action.busy}
      >
        Run now
      </button>{' '}
      <button type="button" onClick={runs.reload}>
        Refresh runs
      </button>
      {pending ? <span class="muted"> a run is in progress…</span> : null}
      <ErrorBox error={runs.error ?? action.error} />
      <ul class="plain">
        {runs.data?.map((r) => (
          <li key={r.id} data-run={r.status}>
            <span class="tag">{r.status}</span> {r.trigger} {when(r.startTime)} {r.rows !== undefined ? `${r.rows} rows` : ''} {r.error ?? ''}{' '}
            {r.status === 'success' ? (
              <button
                type="button"
                class="small"
                onClick={() =>
                  action.run(() => download(`/scheduledReports/${encodeURIComponent(report.id)}/runs/${r.id}/output`, `${report.id}-${r.id}.${report.format}`))
                }
              >
                Download
              </button>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}

export function Reports() {
  const projectId = session()!.projectId;
  const reports = useLoad(() => list<Report>(`/scheduledReports${qs({ projectId })}`, 0, 100), [projectId]);
  const [form, setForm] = useState({ name: '', kind: 'devices', format: 'csv', cron: '0 6 * * *', timezone: 'UTC' });
  const [open, setOpen] = useState<string>();
  const action = useAction();
  const set = (k: keyof typeof form) => (e: Event) => setForm({ ...form, [k]: (e.target as HTMLInputElement).value });
  return (
    <div class="page">
      <h1>Scheduled reports</h1>
      <Section title="Create a report">
        <form
          class="row"
          aria-label="create a report"
          onSubmit={(e) => {
            e.preventDefault();
            action
              .run(() =>
                send('POST', '/scheduledReports', {
                  projectId,
                  name: form.name,
                  kind: form.kind,
                  format: form.format,
                  schedule: { cron: form.cron, timezone: form.timezone },
                  destination: { type: 'store' },
                  enabled: true,
                }),
              )
              .then((ok) => ok && reports.reload());
          }}
        >
          <Field label="Name">
            <input name="reportName" required value={form.name} onInput={set('name')} />
          </Field>
          <Field label="Kind">
            <select name="kind" value={form.kind} onChange={set('kind')}>
              {['devices', 'connectivity', 'events', 'deliveries'].map((k) => (
                <option key={k}>{k}</option>
              ))}
            </select>
          </Field>
          <Field label="Format">
            <select name="format" value={form.format} onChange={set('format')}>
              <option>csv</option>
              <option>json</option>
            </select>
          </Field>
          <Field label="Schedule (cron)">
            <input name="cron" required value={form.cron} onInput={set('cron')} />
          </Field>
          <Field label="Time zone">
            <input name="timezone" required value={form.timezone} onInput={set('timezone')} />
          </Field>
          <button type="submit" class="primary">
            Create
          </button>
        </form>
        <ErrorBox error={action.error} />
      </Section>
      <Section title="Reports">
        <ErrorBox error={reports.error} />
        <ul class="plain">
          {reports.data?.items.map((r) => (
            <li key={r.id} data-report={r.id}>
              <button type="button" class="link" aria-expanded={open === r.id} onClick={() => setOpen(open === r.id ? undefined : r.id)}>
                {r.name}
              </button>{' '}
              <span class="muted">
                {r.kind} · {r.format} · {r.schedule.cron} {r.schedule.timezone} · next {when(r.nextRunTime)}
              </span>{' '}
              <ConfirmButton
                label="Delete"
                confirm={`Delete ${r.name}?`}
                onConfirm={() => action.run(() => send('DELETE', `/scheduledReports/${encodeURIComponent(r.id)}`)).then(reports.reload)}
              />
              {open === r.id ? <Runs report={r} /> : null}
            </li>
          ))}
        </ul>
      </Section>
    </div>
  );
}
