// Smart modules: webhooks with their subscriptions and templates (a preview rendered by the
// service against a sample event, with errors at their position), and the delivery log with
// every attempt and redelivery.
import { useState } from 'preact/hooks';
import { ApiError, get, list, qs, send, session } from '../api';
import { href } from '../router';
import { NotFound } from './not-found';
import { RowForm, SelectField, TextField, inputValue, type Choice } from '../forms';
import { OpenButton, PlainList, Table } from '../lists';
import { DeleteButton, ErrorBox, Field, JsonField, parseJson, Section, Secret, ShownOnce, useAction, useLoad, usePoll, when } from '../ui';

interface EventWebhook {
  url: string;
  /** event types one per line (an array is accepted on input) */
  subscriptions?: string | string[];
  headers?: Record<string, string> | null;
  body?: string | null;
  key?: string;
  enabled?: boolean;
  disabledTime?: string;
  disabledReason?: string;
}
interface Module {
  id: string;
  description?: string;
  eventWebhook?: EventWebhook | null;
  commandWebhook?: { url: string; key?: string; enabled?: boolean; disabledTime?: string; disabledReason?: string } | null;
}

/** a webhook turned off by a 410 answer says why and since when, and turns on again (docs/webhooks.md#retries) */
function TurnedOff({ base, module, onSaved }: { base: string; module: Module; onSaved: (m: Module) => void }) {
  const action = useAction();
  const off = (
    [
      ['event', 'Event webhook', module.eventWebhook],
      ['command', 'Command webhook', module.commandWebhook],
    ] as const
  ).filter(([, , w]) => w && w.enabled === false);
  if (off.length === 0) return null;
  return (
    <div class="error" role="alert" data-turned-off>
      {off.map(([which, label, w]) => (
        <p key={which}>
          {label} turned off{w!.disabledTime ? ` since ${when(w!.disabledTime)}` : ''}
          {w!.disabledReason ? `: ${w!.disabledReason}` : ''}. Nothing is sent to it until it is turned on again.{' '}
          <button
            type="button"
            class="small"
            disabled={action.busy}
            onClick={() => action.run(async () => onSaved(await send<Module>('PATCH', base, { [`${which}Webhook`]: { enabled: true } })))}
          >
            Turn on again
          </button>
        </p>
      ))}
      <ErrorBox error={action.error} />
    </div>
  );
}
interface Attempt {
  time: string;
  statusCode?: number;
  error?: string;
  latencyMs: number;
  response?: string;
}
interface Delivery {
  id: string;
  status: string;
  eventType?: string;
  kind: string;
  creationTime: string;
  attemptCount: number;
  lastAttempt?: Attempt;
  attempts?: Attempt[];
  payload?: unknown;
}

const SAMPLE_EVENT = {
  eventType: 'temperature',
  eventData: { celsius: 21.5 },
  timestamp: new Date(0).toISOString(),
  homeId: 1,
  originDeviceId: 1,
  originDeviceClass: 'default',
};

function WebhookForm({ projectId, module, onSaved }: { projectId: number; module?: Module; onSaved: (m: Module) => void }) {
  const w = module?.eventWebhook;
  const [id, setId] = useState(module?.id ?? '');
  const [url, setUrl] = useState(w?.url ?? '');
  const [subs, setSubs] = useState(Array.isArray(w?.subscriptions) ? w.subscriptions.join('\n') : (w?.subscriptions ?? '*'));
  const [headers, setHeaders] = useState(w?.headers ? JSON.stringify(w.headers, null, 2) : '');
  const [body, setBody] = useState(w?.body ?? '');
  const [sample, setSample] = useState(JSON.stringify(SAMPLE_EVENT, null, 2));
  const [preview, setPreview] = useState<{ headers: Record<string, string>; body: string }>();
  const action = useAction();
  const [saved, setSaved] = useState(false);
  const previewAction = useAction();
  const hdrs = headers.trim() ? parseJson(headers) : { ok: true as const, value: null };
  const webhook = () => ({ url, subscriptions: subs, headers: hdrs.ok ? hdrs.value : null, body: body.trim() ? body : null });
  const runPreview = () =>
    previewAction.run(async () => {
      setPreview(undefined);
      const ev = parseJson(sample);
      if (!ev.ok) throw new Error(`The sample event is not JSON: ${ev.error}`);
      setPreview(
        await send('POST', `/projects/${projectId}/smartModules/templatePreview`, {
          headers: hdrs.ok ? hdrs.value : null,
          body: body.trim() ? body : null,
          event: ev.value,
        }),
      );
    });
  const save = async () => {
    setSaved(false);
    const m = module
      ? await send<Module>('PATCH', `/projects/${projectId}/smartModules/${encodeURIComponent(module.id)}`, { eventWebhook: webhook() })
      : await send<Module>('POST', `/projects/${projectId}/smartModules`, { id, moduleType: 'webhooks', eventWebhook: webhook() });
    setSaved(!!module);
    onSaved(m);
  };
  return (
    <RowForm layout="stack" label={module ? 'edit the event webhook' : 'create a webhook module'} action={action} showErrors={false} onSubmit={save}>
      {module ? null : <TextField label="Module id" hint="3 or more lowercase letters, digits, - or _" name="moduleId" required value={id} onValue={setId} />}
      <TextField label="Webhook URL" name="url" type="url" required value={url} onValue={setUrl} />
      <Field label="Subscriptions" hint="event types, one per line; * for all">
        <textarea name="subscriptions" rows={3} value={subs} onInput={(e) => setSubs(inputValue(e))} />
      </Field>
      <details>
        <summary>Advanced: header and body templates</summary>
        <JsonField label="Headers (JSON object of templates)" value={headers} onInput={setHeaders} rows={3} />
        <Field label="Body template" hint="placeholders like {{eventData.celsius}}; empty sends the event as JSON">
          <textarea name="bodyTemplate" rows={5} spellcheck={false} value={body} onInput={(e) => setBody(inputValue(e))} />
        </Field>
        <JsonField label="Sample event" value={sample} onInput={setSample} rows={6} />
        <button type="button" onClick={runPreview} disabled={previewAction.busy}>
          Preview
        </button>
        <TemplateErrors error={previewAction.error} source={body} />
        {preview ? (
          <div class="preview" data-preview>
            <h4>Headers</h4>
            <pre>
              {Object.entries(preview.headers)
                .map(([k, v]) => `${k}: ${v}`)
                .join('\n') || '(none of yours)'}
            </pre>
            <h4>Body</h4>
            <pre>{preview.body}</pre>
          </div>
        ) : null}
      </details>
      <button type="submit" class="primary" disabled={action.busy || !hdrs.ok}>
        {module ? 'Save' : 'Create'}
      </button>
      {saved && !action.busy ? (
        <span class="muted" role="status">
          {' '}
          Saved.
        </span>
      ) : null}
      <TemplateErrors error={action.error} source={body} />
    </RowForm>
  );
}

/** an error of a template, with a caret under its position in the body template */
function TemplateErrors({ error, source }: { error: unknown; source: string }) {
  if (!error) return null;
  const issue = error instanceof ApiError && Array.isArray(error.data?.issues) ? (error.data!.issues as { path?: string; position?: number }[])[0] : undefined;
  if (issue?.position === undefined || !issue.path?.endsWith('body')) return <ErrorBox error={error} />;
  const before = source.slice(0, issue.position);
  const line = before.split('\n').length;
  const col = issue.position - before.lastIndexOf('\n');
  const text = source.split('\n')[line - 1] ?? '';
  return (
    <div class="error" role="alert">
      <p>{(error as Error).message}</p>
      <pre class="caret">{`line ${line}, column ${col}\n${text}\n${' '.repeat(Math.max(0, col - 1))}^`}</pre>
    </div>
  );
}

export function Modules() {
  const projectId = session()!.projectId;
  const modules = useLoad(() => get<Module[]>(`/projects/${projectId}/smartModules`), [projectId]);
  const [created, setCreated] = useState<Module>();
  return (
    <div class="page">
      <h1>Smart modules</h1>
      <Section title="Create a webhook module">
        <WebhookForm
          projectId={projectId}
          onSaved={(m) => {
            setCreated(m);
            modules.reload();
          }}
        />
        {created?.eventWebhook?.key ? (
          <ShownOnce>
            <p>Module {created.id} created. Its signing key is shown once:</p>
            <Secret label="Signing key" value={created.eventWebhook.key} />
          </ShownOnce>
        ) : null}
      </Section>
      <Section title="Modules">
        <PlainList
          items={modules.data}
          error={modules.error}
          row={(m) => (
            <li key={m.id}>
              <a href={href(`modules/${encodeURIComponent(m.id)}`)}>{m.id}</a> <span class="muted">{m.eventWebhook?.url ?? m.commandWebhook?.url}</span>
            </li>
          )}
        />
        {modules.data?.length === 0 ? <p class="muted">No modules yet. Events reach a webhook only from devices in a home.</p> : null}
      </Section>
    </div>
  );
}

function DeliveryDetail({ base, id, onRedelivered }: { base: string; id: string; onRedelivered: () => void }) {
  const d = useLoad(() => get<Delivery>(`${base}/${encodeURIComponent(id)}`), [id]);
  const action = useAction();
  // a delivery still on its way (queued again by a redelivery) is followed until it settles
  usePoll(d.reload, d.data?.status === 'pending' || d.data?.status === 'delivering', 1000);
  return (
    <div class="delivery-detail">
      <ErrorBox error={d.error ?? action.error} />
      {d.data ? (
        <>
          <Table columns={['Time', 'Status', 'Latency', 'Answer (first bytes)']}>
            {d.data.attempts?.map((a, i) => (
              <tr key={i} data-attempt={i}>
                <td>{when(a.time)}</td>
                <td>{a.statusCode ?? a.error}</td>
                <td>{a.latencyMs} ms</td>
                <td>
                  <code>{(a.response ?? '').slice(0, 200)}</code>
                </td>
              </tr>
            ))}
          </Table>
          <button
            type="button"
            onClick={() => action.run(() => send('POST', `${base}/${encodeURIComponent(id)}/redeliver`)).then((ok) => ok && (d.reload(), onRedelivered()))}
          >
            Redeliver
          </button>
        </>
      ) : null}
    </div>
  );
}

const DELIVERY_STATUSES: Choice[] = [['', 'any'], 'pending', 'delivering', 'success', 'failed', 'dropped'];

export function ModulePage({ id }: { id: string }) {
  const projectId = session()!.projectId;
  const base = `/projects/${projectId}/smartModules/${encodeURIComponent(id)}`;
  const module = useLoad(() => get<Module>(base), [id]);
  const [status, setStatus] = useState('');
  const deliveries = useLoad(() => list<Delivery>(`${base}/deliveries${qs({ status })}`, 0, 100), [id, status]);
  const [open, setOpen] = useState<string>();
  const action = useAction();
  usePoll(
    deliveries.reload,
    deliveries.data?.items.some((d) => d.status === 'pending' || d.status === 'delivering'),
    2000,
  );
  if (module.error instanceof ApiError && module.error.status === 404) return <NotFound why={`There is no module “${id}” in this project.`} back="modules" />;
  return (
    <div class="page">
      <p>
        <a href="#/modules">← Smart modules</a>
      </p>
      <h1>Module {id}</h1>
      <ErrorBox error={module.error ?? action.error} />
      {module.data?.id === id ? <TurnedOff base={base} module={module.data} onSaved={module.set} /> : null}
      {module.data?.id === id ? (
        <Section
          title="Event webhook"
          actions={
            <DeleteButton
              label="Delete module"
              confirm={`Delete ${id} and its delivery log?`}
              action={action}
              path={base}
              onDone={() => (location.hash = '#/modules')}
            />
          }
        >
          {/* the form's state belongs to one module: keyed on its id, it never carries one module's settings into another's Save */}
          <WebhookForm key={module.data.id} projectId={projectId} module={module.data} onSaved={module.set} />
        </Section>
      ) : null}
      <Section
        title="Delivery log"
        actions={
          <button type="button" onClick={deliveries.reload}>
            Refresh
          </button>
        }
      >
        <SelectField label="Status" value={status} choices={DELIVERY_STATUSES} onValue={setStatus} />
        <ErrorBox error={deliveries.error} />
        <ul class="plain deliveries">
          {deliveries.data?.items.map((d) => (
            <li key={d.id} data-delivery={d.status}>
              <OpenButton id={d.id} open={open} onOpen={setOpen}>
                {when(d.creationTime)} {d.eventType ?? d.kind}
              </OpenButton>{' '}
              <span class="tag">{d.status}</span> <span class="muted">{d.attemptCount} attempt(s)</span>
              {open === d.id ? <DeliveryDetail base={`${base}/deliveries`} id={d.id} onRedelivered={deliveries.reload} /> : null}
            </li>
          ))}
        </ul>
        {deliveries.data?.items.length === 0 ? <p class="muted">No deliveries.</p> : null}
      </Section>
    </div>
  );
}
