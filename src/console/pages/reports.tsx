// Scheduled reports: create one, run it now, follow its runs and download an output.
import { useState } from 'preact/hooks';
import { download, get, list, qs, send, session } from '../api';
import { RowForm, SelectField, TextField } from '../forms';
import { OpenButton, PlainList } from '../lists';
import { DeleteButton, ErrorBox, Section, useAction, useLoad, usePoll, when } from '../ui';

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
  usePoll(runs.reload, pending, 2000);
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
  const set = (k: keyof typeof form) => (v: string) => setForm({ ...form, [k]: v });
  const create = () =>
    send('POST', '/scheduledReports', {
      projectId,
      name: form.name,
      kind: form.kind,
      format: form.format,
      schedule: { cron: form.cron, timezone: form.timezone },
      destination: { type: 'store' },
      enabled: true,
    });
  return (
    <div class="page">
      <h1>Scheduled reports</h1>
      <Section title="Create a report">
        <RowForm label="create a report" action={action} submit="Create" onSubmit={create} onDone={reports.reload}>
          <TextField label="Name" name="reportName" required value={form.name} onValue={set('name')} />
          <SelectField label="Kind" name="kind" value={form.kind} choices={KINDS} onValue={set('kind')} />
          <SelectField label="Format" name="format" value={form.format} choices={['csv', 'json']} onValue={set('format')} />
          <TextField label="Schedule (cron)" name="cron" required value={form.cron} onValue={set('cron')} />
          <TextField label="Time zone" name="timezone" required value={form.timezone} onValue={set('timezone')} />
        </RowForm>
      </Section>
      <Section title="Reports">
        <PlainList
          items={reports.data?.items}
          error={reports.error}
          row={(r) => (
            <li key={r.id} data-report={r.id}>
              <OpenButton id={r.id} open={open} onOpen={setOpen}>
                {r.name}
              </OpenButton>{' '}
              <span class="muted">
                {r.kind} · {r.format} · {r.schedule.cron} {r.schedule.timezone} · next {when(r.nextRunTime)}
              </span>{' '}
              <DeleteButton confirm={`Delete ${r.name}?`} action={action} path={`/scheduledReports/${encodeURIComponent(r.id)}`} onDone={reports.reload} />
              {open === r.id ? <Runs report={r} /> : null}
            </li>
          )}
        />
      </Section>
    </div>
  );
}

const KINDS = ['devices', 'connectivity', 'events', 'deliveries'];
