// One rollout: a bar per device state, the wave now open, the failure rate
// against the threshold that pauses it, pause / resume / abort with a confirmation, and its
// devices filtered by state with the service's paging. `_rolloutUpdated_` events of the stream
// keep the figures and the devices table current without a reload.
import { useEffect, useState } from 'preact/hooks';
import { get, qs, send, session } from '../api';
import { onEvent } from '../stream';
import { href } from '../router';
import { Line, SelectField, type Choice } from '../forms';
import { Table, usePaged } from '../lists';
import { ConfirmButton, ErrorBox, Section, useAction, useCoalesced, useLoad, when } from '../ui';
import {
  DEVICE_STATES,
  StateBars,
  failureRate,
  fullRollout,
  isFinished,
  percentText,
  rolloutIdOf,
  waveText,
  type Rollout,
  type RolloutDevice,
  type RolloutEvent,
} from './firmware';

const LIMIT = 50;
const STATE_FILTERS: Choice[] = [['', 'any'], ...DEVICE_STATES];

function Devices({ projectId, id, changed }: { projectId: number; id: string; changed: number }) {
  const [state, setState] = useState('');
  const page = usePaged<RolloutDevice>(`/projects/${projectId}/rollouts/${encodeURIComponent(id)}/devices${qs({ state })}`, LIMIT);
  const refresh = useCoalesced(page.reload, page.loading);
  // a change of the rollout's counts is a change of some device's state
  useEffect(() => {
    if (changed > 0) refresh();
  }, [changed]);
  return (
    <Section title="Devices">
      <form class="row filters" aria-label="filter the rollout's devices" onSubmit={(e) => e.preventDefault()}>
        <SelectField label="State" name="state" value={state} choices={STATE_FILTERS} onValue={setState} />
      </form>
      <ErrorBox error={page.error} />
      <Table
        label="devices of the rollout"
        columns={['Device', 'State', 'Since', 'Error']}
        attrs={{ 'data-filter': state || 'any', 'data-loading': page.loading ? 'yes' : 'no' }}
      >
        {page.data?.items.map((d) => (
          <tr key={d.deviceId} data-device={d.deviceId}>
            <td>
              <a href={href(`devices/${d.deviceId}`)}>{d.deviceId}</a>
            </td>
            <td data-field="state">{d.state}</td>
            <td>{when(d.updateTime)}</td>
            <td>{d.error ?? ''}</td>
          </tr>
        ))}
      </Table>
      {page.pager}
    </Section>
  );
}

function Actions({ r, onChanged }: { r: Rollout; onChanged: (r: Rollout) => void }) {
  const action = useAction();
  const path = `/projects/${r.projectId}/rollouts/${encodeURIComponent(r.id)}`;
  const to = (state: 'running' | 'paused' | 'aborted') => () =>
    void action.run(async () => {
      const next = await send<Rollout | undefined>('PATCH', path, { state });
      onChanged(next && typeof next === 'object' && 'state' in next ? next : await get<Rollout>(path));
    });
  if (isFinished(r)) return <p class="muted">This rollout is {r.state}; it cannot be changed.</p>;
  return (
    <div class="row actions">
      {r.state === 'running' ? (
        <ConfirmButton label="Pause" confirm="Pause the rollout? No more devices are notified until it resumes." onConfirm={to('paused')} />
      ) : (
        <ConfirmButton label="Resume" confirm="Resume the rollout?" onConfirm={to('running')} />
      )}
      <ConfirmButton label="Abort" confirm="Abort the rollout? Updates not yet delivered are cancelled; this cannot be undone." onConfirm={to('aborted')} />
      <ErrorBox error={action.error} />
    </div>
  );
}

export function RolloutPage({ id }: { id: string }) {
  const projectId = session()!.projectId;
  const path = `/projects/${projectId}/rollouts/${encodeURIComponent(id)}`;
  const r = useLoad(() => get<Rollout>(path), [path]);
  const [changed, setChanged] = useState(0);
  const refresh = useCoalesced(r.reload, r.loading);
  const { data, set } = r;
  useEffect(
    () =>
      onEvent((e) => {
        if (e.eventType !== '_rolloutUpdated_') return;
        const d = e.eventData as RolloutEvent;
        if (rolloutIdOf(d) !== id) return;
        if (data && fullRollout(d)) set({ ...data, ...d });
        else refresh();
        setChanged((n) => n + 1);
      }),
    [id, data],
  );
  if (!data)
    return (
      <div class="page">
        <h1>Rollout</h1>
        {r.error ? <ErrorBox error={r.error} /> : <p class="muted">Loading…</p>}
        <p>
          <a href={href('firmware')}>All rollouts</a>
        </p>
      </div>
    );
  const rate = failureRate(data);
  const over = rate !== undefined && rate > data.failureThreshold;
  return (
    <div class="page">
      <h1>Rollout {data.name || data.id}</h1>
      <p>
        <a href={href('firmware')}>All rollouts</a>
      </p>
      <Section title="Progress">
        <dl class="details">
          <Line label="State" attrs={{ 'data-field': 'state' }}>
            {data.state}
          </Line>
          <Line label="Bundle">{data.bundleId}</Line>
          <Line label="Wave" attrs={{ 'data-field': 'wave' }}>
            {waveText(data)} ({data.waves.map((w) => `${w.percent}%${w.afterMinutes ? ` after ${w.afterMinutes} min` : ''}`).join(', ')})
          </Line>
          <Line label="Failure rate" attrs={{ 'data-field': 'failure-rate', class: over ? 'bad' : undefined }}>
            {rate === undefined ? 'no results yet' : percentText(rate)} against a threshold of {percentText(data.failureThreshold)}
            {data.counts.installed + data.counts.failed < 5 ? ' (it can pause the rollout from 5 results on)' : ''}
          </Line>
          <Line label="Target">
            devices of the bundle's class
            {data.target?.channel ? `, channel ${data.target.channel}` : ''}
            {data.target?.tag ? `, tag ${data.target.tag}` : ''}
            {data.target?.deviceIds?.length ? `, devices ${data.target.deviceIds.join(', ')}` : ''}
          </Line>
          <Line label="Started">{when(data.creationTime)}</Line>
          <Line label="Updated">{when(data.updateTime)}</Line>
        </dl>
        <StateBars r={data} />
        <Actions r={data} onChanged={(next) => (set(next), setChanged((n) => n + 1))} />
        <ErrorBox error={r.error} />
      </Section>
      <Devices projectId={projectId} id={id} changed={changed} />
    </div>
  );
}
