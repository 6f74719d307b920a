// One device: its details with inline edit of name, description and tag; KV; commands; events
// (live and history); data records; log requests.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, send, session } from '../api';
import { onEvent } from '../stream';
import { ErrorBox, Field, Secret, Section, useAction, useLoad, when } from '../ui';
import { HomeSelect, useHomes } from '../home-names';
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
          <SaveCancel busy={action.busy} onCancel={() => setEditing(false)} />
        </form>
        <ErrorBox error={action.error} />
      </dd>
    </div>
  );
}

/** the device's home by name; a project key moves it to another home or out of every home (docs/api.md#device-operations) */
function HomeField({ device, onSaved }: { device: Device; onSaved: () => void }) {
  const homes = useHomes(device.projectId);
  const [editing, setEditing] = useState(false);
  const [chosen, setChosen] = useState('');
  const action = useAction();
  const canMove = session()?.kind === 'project key';
  const shown = device.homeId === undefined ? 'in no home (its events reach no smart module)' : homes.nameOf(device.homeId);
  if (!editing)
    return (
      <div class="kv-line">
        <dt>Home</dt>
        <dd>
          <span data-field="home">{shown}</span>{' '}
          {canMove ? (
            <button
              type="button"
              class="small"
              aria-label="Change home"
              onClick={() => {
                setChosen(device.homeId === undefined ? '' : String(device.homeId));
                setEditing(true);
              }}
            >
              Change
            </button>
          ) : null}
        </dd>
      </div>
    );
  return (
    <div class="kv-line">
      <dt>Home</dt>
      <dd>
        <form
          class="inline"
          aria-label="choose a home"
          onSubmit={(e) => {
            e.preventDefault();
            action
              .run(() => send('PATCH', `/devices/${device.id}`, { homeId: chosen === '' ? null : Number(chosen) }))
              .then((ok) => ok && (setEditing(false), onSaved()));
          }}
        >
          <HomeSelect label="Home" homes={homes} value={chosen} onChange={setChosen} current={device.homeId} />
          <SaveCancel busy={action.busy} onCancel={() => setEditing(false)} />
        </form>
        <ErrorBox error={action.error ?? homes.error} />
      </dd>
    </div>
  );
}

export function DevicePage({ id }: { id: number }) {
  const device = useLoad(() => get<Device>(`/devices/${id}`), [id]);
  // presence from the live stream since the last read: the server stamps lastConnectTime and
  // lastDisconnectTime with the time its _deviceConnected_ / _deviceDisconnected_ event carries
  // (docs/concepts.md#system-events), so the page shows that time at once
  const [presence, setPresence] = useState<{ on: boolean; at: string }>();
  useEffect(() => setPresence(undefined), [device.data]);
  useEffect(
    () =>
      onEvent((e) => {
        if (e.originDeviceId !== id) return;
        if (e.eventType === '_deviceConnected_') setPresence({ on: true, at: e.timestamp });
        if (e.eventType === '_deviceDisconnected_') setPresence({ on: false, at: e.timestamp });
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
  const on = presence?.on ?? d?.isConnected;
  const lastConnect = presence?.on ? presence.at : d?.lastConnectTime;
  const lastDisconnect = presence && !presence.on ? presence.at : d?.lastDisconnectTime;
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
            <HomeField device={d} onSaved={device.reload} />
            <div class="kv-line">
              <dt>Last connect</dt>
              <dd data-field="lastConnectTime">{when(lastConnect)}</dd>
            </div>
            <div class="kv-line">
              <dt>Last disconnect</dt>
              <dd data-field="lastDisconnectTime">{when(lastDisconnect)}</dd>
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

/** the buttons of a field being edited in place */
function SaveCancel({ busy, onCancel }: { busy: boolean; onCancel: () => void }) {
  return (
    <>
      <button type="submit" class="primary small" disabled={busy}>
        Save
      </button>
      <button type="button" class="small" onClick={onCancel}>
        Cancel
      </button>
    </>
  );
}
