// One device: its details with inline edit of name, description and tag; KV; commands; events
// (live and history); data records; log requests.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, send } from '../api';
import { onEvent } from '../stream';
import { ErrorBox, Field, Secret, Section, useAction, useLoad, when } from '../ui';
import type { Device } from './devices';
import { DeviceKv } from './device-kv';
import { SendCommand } from './device-command';
import { DeviceEvents } from './device-events';
import { DeviceData } from './device-data';
import { DeviceLogRequests } from './device-logs';
import { NotFound } from './not-found';

function Editable({ label, name, value, onSave }: { label: string; name: string; value?: string; onSave: (v: string) => Promise<void> }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(value ?? '');
  const action = useAction();
  if (!editing)
    return (
      <div class="kv-line">
        <dt>{label}</dt>
        <dd>
          <span data-field={name}>{value || '—'}</span>{' '}
          <button
            type="button"
            class="small"
            aria-label={`Edit ${label.toLowerCase()}`}
            onClick={() => {
              setText(value ?? '');
              setEditing(true);
            }}
          >
            Edit
          </button>
        </dd>
      </div>
    );
  return (
    <div class="kv-line">
      <dt>{label}</dt>
      <dd>
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault();
            action.run(() => onSave(text)).then((ok) => ok && setEditing(false));
          }}
        >
          <input aria-label={label} name={name} value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
          <button type="submit" class="primary small" disabled={action.busy}>
            Save
          </button>
          <button type="button" class="small" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </form>
        <ErrorBox error={action.error} />
      </dd>
    </div>
  );
}

export function DevicePage({ id }: { id: number }) {
  const device = useLoad(() => get<Device>(`/devices/${id}`), [id]);
  const [online, setOnline] = useState<boolean>();
  useEffect(() => setOnline(undefined), [device.data]);
  useEffect(
    () =>
      onEvent((e) => {
        if (e.originDeviceId !== id) return;
        if (e.eventType === '_deviceConnected_') setOnline(true);
        if (e.eventType === '_deviceDisconnected_') setOnline(false);
      }),
    [id],
  );
  const d = device.data;
  const save = (field: 'name' | 'description' | 'tag') => async (value: string) => {
    await send('PATCH', `/devices/${id}`, { [field]: value });
    device.reload();
  };
  if (device.error instanceof ApiError && device.error.status === 404)
    return <NotFound why={`There is no device ${id} in this project (or this credential may not see it).`} back="devices" />;
  const on = online ?? d?.isConnected;
  return (
    <div class="page">
      <p>
        <a href="#/devices">← Devices</a>
      </p>
      <h1>{d?.name || `Device ${id}`}</h1>
      <ErrorBox error={device.error} />
      {d ? (
        <Section title="Details">
          <dl class="details">
            <div class="kv-line">
              <dt>Id</dt>
              <dd>{d.id}</dd>
            </div>
            <div class="kv-line">
              <dt>Status</dt>
              <dd class="status" data-status={on ? 'online' : 'offline'}>
                <span class={on ? 'dot on' : 'dot'} aria-hidden="true" />
                {on ? 'online' : 'offline'}
              </dd>
            </div>
            <Editable label="Name" name="name" value={d.name} onSave={save('name')} />
            <Editable label="Description" name="description" value={d.description} onSave={save('description')} />
            <Editable label="Tag" name="tag" value={d.tag} onSave={save('tag')} />
            <div class="kv-line">
              <dt>Class</dt>
              <dd>{d.deviceClass}</dd>
            </div>
            <div class="kv-line">
              <dt>Home</dt>
              <dd>{d.homeId ?? 'in no home (its events reach no smart module)'}</dd>
            </div>
            <div class="kv-line">
              <dt>Last connect</dt>
              <dd>{when(d.lastConnectTime)}</dd>
            </div>
            <div class="kv-line">
              <dt>Last disconnect</dt>
              <dd>{when(d.lastDisconnectTime)}</dd>
            </div>
          </dl>
          {d.apiKey ? <Secret label="API key" value={d.apiKey} /> : null}
        </Section>
      ) : null}
      {/* the rest once the device is known: a device that is not there opens no KV socket and lists nothing */}
      {d ? (
        <>
          <DeviceKv id={id} />
          <SendCommand id={id} online={on} />
          <DeviceEvents id={id} projectId={d.projectId} />
          <DeviceData id={id} projectId={d.projectId} />
          <DeviceLogRequests id={id} />
        </>
      ) : null}
    </div>
  );
}

export const FieldRow = Field;
