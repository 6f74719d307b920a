// The general log and the HTTP access log, with their filters and paging.
import { useState } from 'preact/hooks';
import { list, qs, session } from '../api';
import { ErrorBox, Field, Pager, Section, useLoad, when } from '../ui';

const LEVELS = ['debug', 'info', 'warn', 'error'];
const LIMIT = 50;

function GeneralLog({ projectId }: { projectId: number }) {
  const [level, setLevel] = useState('');
  const [source, setSource] = useState('');
  const [skip, setSkip] = useState(0);
  const page = useLoad(
    () =>
      list<{ timestamp: string; level: number; source: string; text: string; caller?: { type?: string; name?: string } }>(
        `/logs${qs({ projectId, level, source })}`,
        skip,
        LIMIT,
      ),
    [projectId, level, source, skip],
  );
  return (
    <Section title="General log">
      <form class="row filters" aria-label="filter the general log" onSubmit={(e) => e.preventDefault()}>
        <Field label="Level">
          <select value={level} onChange={(e) => (setLevel((e.target as HTMLSelectElement).value), setSkip(0))}>
            <option value="">any</option>
            {LEVELS.map((l, i) => (
              <option key={l} value={i}>
                {l}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Source">
          <input value={source} onInput={(e) => (setSource((e.target as HTMLInputElement).value), setSkip(0))} placeholder="api, broker, webhooks…" />
        </Field>
      </form>
      <ErrorBox error={page.error} />
      <ul class="log">
        {page.data?.items.map((l, i) => (
          <li key={i} class={`level-${l.level}`}>
            <time>{when(l.timestamp)}</time> <span class="tag">{LEVELS[l.level] ?? l.level}</span> <span class="tag">{l.source}</span> {l.text}
          </li>
        ))}
      </ul>
      {page.data ? <Pager skip={skip} limit={LIMIT} total={page.data.total} onPage={setSkip} /> : null}
    </Section>
  );
}

function AccessLog({ projectId }: { projectId: number }) {
  const [method, setMethod] = useState('');
  const [statusCode, setStatus] = useState('');
  const [pathPrefix, setPrefix] = useState('');
  const [skip, setSkip] = useState(0);
  const page = useLoad(
    () =>
      list<{ timestamp: string; method: string; path: string; statusCode: number; latency: number; clientIp: string }>(
        `/httpAccessLogs${qs({ projectId, method, statusCode, pathPrefix })}`,
        skip,
        LIMIT,
      ),
    [projectId, method, statusCode, pathPrefix, skip],
  );
  return (
    <Section title="HTTP access log">
      <form class="row filters" aria-label="filter the access log" onSubmit={(e) => e.preventDefault()}>
        <Field label="Method">
          <select value={method} onChange={(e) => (setMethod((e.target as HTMLSelectElement).value), setSkip(0))}>
            {['', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => (
              <option key={m} value={m}>
                {m || 'any'}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Status">
          <input inputMode="numeric" value={statusCode} onInput={(e) => (setStatus((e.target as HTMLInputElement).value), setSkip(0))} />
        </Field>
        <Field label="Path prefix">
          <input value={pathPrefix} onInput={(e) => (setPrefix((e.target as HTMLInputElement).value), setSkip(0))} placeholder="/devices" />
        </Field>
      </form>
      <ErrorBox error={page.error} />
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Method</th>
              <th scope="col">Path</th>
              <th scope="col">Status</th>
              <th scope="col">Latency</th>
              <th scope="col">Client</th>
            </tr>
          </thead>
          <tbody>
            {page.data?.items.map((r, i) => (
              <tr key={i}>
                <td>{when(r.timestamp)}</td>
                <td>{r.method}</td>
                <td>
                  <code>{r.path}</code>
                </td>
                <td>{r.statusCode}</td>
                <td>{(r.latency / 1e6).toFixed(1)} ms</td>
                <td>{r.clientIp}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {page.data ? <Pager skip={skip} limit={LIMIT} total={page.data.total} onPage={setSkip} /> : null}
    </Section>
  );
}

export function Logs() {
  const projectId = session()!.projectId;
  return (
    <div class="page">
      <h1>Logs</h1>
      <GeneralLog projectId={projectId} />
      <AccessLog projectId={projectId} />
    </div>
  );
}
