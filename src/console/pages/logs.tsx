// The general log and the HTTP access log, with their filters and paging.
import { useState } from 'preact/hooks';
import { qs, session } from '../api';
import { SelectField, inputValue, type Choice } from '../forms';
import { Table, usePaged } from '../lists';
import { ErrorBox, Field, Section, when } from '../ui';

const LEVELS = ['debug', 'info', 'warn', 'error'];
const LEVEL_FILTERS: Choice[] = [['', 'any'], ...LEVELS.map((l, i): Choice => [String(i), l])];
const METHODS: Choice[] = [['', 'any'], 'GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const LIMIT = 50;

interface LogLine {
  timestamp: string;
  level: number;
  source: string;
  text: string;
  caller?: { type?: string; name?: string };
}
interface AccessLine {
  timestamp: string;
  method: string;
  path: string;
  statusCode: number;
  latency: number;
  clientIp: string;
}

function GeneralLog({ projectId }: { projectId: number }) {
  const [level, setLevel] = useState('');
  const [source, setSource] = useState('');
  const page = usePaged<LogLine>(`/logs${qs({ projectId, level, source })}`, LIMIT);
  return (
    <Section title="General log">
      <form class="row filters" aria-label="filter the general log" onSubmit={(e) => e.preventDefault()}>
        <SelectField label="Level" value={level} choices={LEVEL_FILTERS} onValue={setLevel} />
        <Field label="Source">
          <input value={source} onInput={(e) => setSource(inputValue(e))} placeholder="api, broker, webhooks…" />
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
      {page.pager}
    </Section>
  );
}

function AccessLog({ projectId }: { projectId: number }) {
  const [method, setMethod] = useState('');
  const [statusCode, setStatus] = useState('');
  const [pathPrefix, setPrefix] = useState('');
  const page = usePaged<AccessLine>(`/httpAccessLogs${qs({ projectId, method, statusCode, pathPrefix })}`, LIMIT);
  return (
    <Section title="HTTP access log">
      <form class="row filters" aria-label="filter the access log" onSubmit={(e) => e.preventDefault()}>
        <SelectField label="Method" value={method} choices={METHODS} onValue={setMethod} />
        <Field label="Status">
          <input inputMode="numeric" value={statusCode} onInput={(e) => setStatus(inputValue(e))} />
        </Field>
        <Field label="Path prefix">
          <input value={pathPrefix} onInput={(e) => setPrefix(inputValue(e))} placeholder="/devices" />
        </Field>
      </form>
      <ErrorBox error={page.error} />
      <Table columns={['Time', 'Method', 'Path', 'Status', 'Latency', 'Client']}>
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
      </Table>
      {page.pager}
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
