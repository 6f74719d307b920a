// One device: its details with inline edit of name, description and tag; KV; commands; events
// (live and history); data records; log requests.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, send, session } from '../api';
import { eventsReceived, onEvent } from '../stream';
import { Line, RowForm, inputValue } from '../forms';
import { ErrorBox, Secret, Section, useAction, useLoad, when } from '../ui';
import { HomeSelect, useHomes } from '../home-names';
import { Presence, type Device } from './devices';
import { DeviceKv } from './device-kv';
import { SendCommand } from './device-command';
import { DeviceEvents } from './device-events';
import { DeviceData } from './device-data';
import { DeviceLogRequests } from './device-logs';
import { NotFound } from './not-found';

/** a line of the details whose value is edited in place: the value with Edit, or its form with Save and Cancel */
function EditLine(p: {
  label: string;
  shown: ComponentChildren;
  /** the edit button's name for a screen reader, and its words */
  edit: [aria: string, words: string] | undefined;
  onEdit: () => void;
  onSave: () => Promise<unknown>;
  onSaved?: () => void;
  /** shown with the form's own error (the homes could not be read) */
  error?: unknown;
  children: ComponentChildren;
  formLabel?: string;
}) {
  const [editing, setEditing] = useState(false);
  const action = useAction();
  if (!editing)
    return (
      <Line label={p.label}>
        {p.shown}{' '}
        {p.edit ? (
          <button
            type="button"
            class="small"
            aria-label={p.edit[0]}
            onClick={() => {
              p.onEdit();
              setEditing(true);
            }}
          >
            {p.edit[1]}
          </button>
        ) : null}
      </Line>
    );
  return (
    <Line label={p.label}>
      <RowForm
        layout="inline"
        label={p.formLabel}
        action={action}
        error={p.error}
        onSubmit={p.onSave}
        onDone={() => (setEditing(false), p.onSaved?.())}
        onCancel={() => setEditing(false)}
      >
        {p.children}
      </RowForm>
    </Line>
  );
}

function Editable({ label, name, value, onSave }: { label: string; name: string; value?: string; onSave: (v: string) => Promise<void> }) {
  const [text, setText] = useState(value ?? '');
  return (
    <EditLine
      label={label}
      shown={<span data-field={name}>{value || '—'}</span>}
      edit={[`Edit ${label.toLowerCase()}`, 'Edit']}
      onEdit={() => setText(value ?? '')}
      onSave={() => onSave(text)}
    >
      <input aria-label={label} name={name} value={text} onInput={(e) => setText(inputValue(e))} />
    </EditLine>
  );
}

/** the device's home by name; a project key moves it to another home or out of every home (docs/api.md#device-operations) */
function HomeField({ device, onSaved }: { device: Device; onSaved: () => void }) {
  const homes = useHomes(device.projectId);
  const [chosen, setChosen] = useState('');
  const canMove = session()?.kind === 'project key';
  const shown = device.homeId === undefined ? 'in no home (its events reach no smart module)' : homes.nameOf(device.homeId);
  return (
    <EditLine
      label="Home"
      formLabel="choose a home"
      shown={<span data-field="home">{shown}</span>}
      edit={canMove ? ['Change home', 'Change'] : undefined}
      onEdit={() => setChosen(device.homeId === undefined ? '' : String(device.homeId))}
      onSave={() => send('PATCH', `/devices/${device.id}`, { homeId: chosen === '' ? null : Number(chosen) })}
      onSaved={onSaved}
      error={homes.error}
    >
      <HomeSelect label="Home" homes={homes} value={chosen} onChange={setChosen} current={device.homeId} />
    </EditLine>
  );
}

export function DevicePage({ id }: { id: number }) {
  const device = useLoad(() => get<Device>(`/devices/${id}`), [id]);
  // presence from the live stream since the last read: the server stamps lastConnectTime and
  // lastDisconnectTime with the time its _deviceConnected_ / _deviceDisconnected_ event carries
  // (docs/concepts.md#system-events), so the page shows that time at once
  // (a read supersedes only what the stream said before the read began: eventsReceived)
  const [presence, setPresence] = useState<{ on: boolean; at: string; n: number }>();
  useEffect(() => setPresence((p) => (p && p.n > device.since ? p : undefined)), [device.data]);
  useEffect(
    () =>
      onEvent((e) => {
        if (e.originDeviceId !== id) return;
        if (e.eventType === '_deviceConnected_') setPresence({ on: true, at: e.timestamp, n: eventsReceived() });
        if (e.eventType === '_deviceDisconnected_') setPresence({ on: false, at: e.timestamp, n: eventsReceived() });
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
            <Line label="Id">{d.id}</Line>
            <Line label="Status" attrs={{ class: 'status', 'data-status': on ? 'online' : 'offline' }}>
              <Presence on={on} />
            </Line>
            <Editable label="Name" name="name" value={d.name} onSave={save('name')} />
            <Editable label="Description" name="description" value={d.description} onSave={save('description')} />
            <Editable label="Tag" name="tag" value={d.tag} onSave={save('tag')} />
            <Line label="Class">{d.deviceClass}</Line>
            <HomeField device={d} onSaved={device.reload} />
            <Line label="Last connect" attrs={{ 'data-field': 'lastConnectTime' }}>
              {when(lastConnect)}
            </Line>
            <Line label="Last disconnect" attrs={{ 'data-field': 'lastDisconnectTime' }}>
              {when(lastDisconnect)}
            </Line>
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
