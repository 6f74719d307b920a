// Data records of the device from the project's `store` data sources, plotted over time: every
// numeric field of the records is a series.
import { useMemo, useState } from 'preact/hooks';
import { get, list, qs } from '../api';
import { Chart } from '../chart';
import { SelectField, type Choice } from '../forms';
import { ErrorBox, Section, useLoad } from '../ui';

interface Source {
  id: string;
  name: string;
  type: string;
}
interface Record_ {
  timestamp?: string;
  receivedTime?: string;
  data?: Record<string, unknown>;
  [k: string]: unknown;
}

export function DeviceData({ id, projectId }: { id: number; projectId: number }) {
  const sources = useLoad(async () => (await get<Source[]>(`/projects/${projectId}/dataSources`)).filter((s) => s.type === 'store'), [projectId]);
  const [chosen, setChosen] = useState('');
  const source = chosen || sources.data?.[0]?.id || '';
  const records = useLoad(
    async () =>
      source ? list<Record_>(`/projects/${projectId}/dataSources/${encodeURIComponent(source)}/records${qs({ deviceId: id })}`, 0, 1000) : undefined,
    [source, id],
  );
  const chart = useMemo(() => {
    const rows = (records.data?.items ?? [])
      .map((r) => {
        const body = (r.data && typeof r.data === 'object' ? r.data : r) as Record<string, unknown>;
        const t = Date.parse(String(r.timestamp ?? r.receivedTime ?? body.timestamp ?? ''));
        return { t, body };
      })
      .filter((r) => Number.isFinite(r.t))
      .sort((a, b) => a.t - b.t);
    const fields = [...new Set(rows.flatMap((r) => Object.keys(r.body).filter((k) => typeof r.body[k] === 'number')))].slice(0, 5);
    const data: [number[], ...(number | null)[][]] = [
      rows.map((r) => r.t / 1000),
      ...fields.map((f) => rows.map((r) => (typeof r.body[f] === 'number' ? (r.body[f] as number) : null))),
    ];
    return { fields, data, count: rows.length };
  }, [records.data]);
  return (
    <Section title="Data">
      <ErrorBox error={sources.error ?? records.error} />
      {sources.data?.length === 0 ? (
        <p class="muted">
          The project has no store data source; records posted by devices are kept only by a <code>store</code> source.
        </p>
      ) : null}
      {sources.data && sources.data.length > 1 ? (
        <SelectField label="Data source" value={source} choices={sources.data.map((s): Choice => [s.id, s.name || s.id])} onValue={setChosen} />
      ) : null}
      {chart.count > 0 && chart.fields.length > 0 ? (
        <Chart title={`records of ${source}`} labels={chart.fields} data={chart.data} />
      ) : source ? (
        <p class="muted">No numeric records yet.</p>
      ) : null}
    </Section>
  );
}
