// Devices: the project's devices with search, filters and paging (range header); the status cell
// follows the live stream (_deviceConnected_ / _deviceDisconnected_) without a reload. Create a
// device (its key and claim code shown once) and delete with a confirmation.
import { useEffect, useState } from 'preact/hooks';
import { get, list, qs, send, session } from '../api';
import { onEvent } from '../stream';
import { href } from '../router';
import { HomeSelect, useHomes, type Homes } from '../home-names';
import { ConfirmButton, ErrorBox, Field, Pager, Secret, Section, useAction, useLoad, when } from '../ui';

export interface Device {
  id: number;
  projectId: number;
  name?: string;
  description?: string;
  tag?: string;
  deviceClass: string;
  homeId?: number;
  isConnected?: boolean;
  lastConnectTime?: string;
  lastDisconnectTime?: string;
  apiKey?: string;
  claimCode?: string;
}

const LIMIT = 50;

function CreateDevice({ projectId, homes, onCreated }: { projectId: number; homes: Homes; onCreated: () => void }) {
  const classes = useLoad(() => get<{ id: string }[]>(`/projects/${projectId}/deviceClasses`), [projectId]);
  const [deviceClass, setClass] = useState('');
  const [name, setName] = useState('');
  const [tag, setTag] = useState('');
  const [homeId, setHome] = useState('');
  const [created, setCreated] = useState<Device>();
  const action = useAction();
  const cls = deviceClass || classes.data?.[0]?.id || '';
  return (
    <Section title="Add a device">
      <form
        class="row"
        aria-label="add a device"
        onSubmit={(e) => {
          e.preventDefault();
          action.run(async () => {
            const d = await send<Device>('POST', '/devices', {
              projectId,
              deviceClass: cls,
              name: name || undefined,
              tag: tag || undefined,
              homeId: homeId === '' ? undefined : Number(homeId),
            });
            setCreated(d);
            setName('');
            onCreated();
          });
        }}
      >
        <Field label="Class">
          <select name="deviceClass" value={cls} onChange={(e) => setClass((e.target as HTMLSelectElement).value)}>
            {classes.data?.map((c) => (
              <option key={c.id} value={c.id}>
                {c.id}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Name">
          <input name="name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </Field>
        <Field label="Tag">
          <input name="tag" value={tag} onInput={(e) => setTag((e.target as HTMLInputElement).value)} />
        </Field>
        <HomeSelect label="Home" homes={homes} value={homeId} onChange={setHome} />
        <button type="submit" class="primary" disabled={action.busy || !cls}>
          Create
        </button>
      </form>
      <ErrorBox error={action.error ?? classes.error} />
      {created ? (
        <div class="once" role="status">
          <p>
            Device <a href={href(`devices/${created.id}`)}>{created.id}</a> created. Its key and claim code are shown once here; an admin can read the key again
            on the device's page.
          </p>
          {created.apiKey ? <Secret label="API key" value={created.apiKey} /> : null}
          {created.claimCode ? <Secret label="Claim code" value={created.claimCode} /> : null}
          <button type="button" onClick={() => setCreated(undefined)}>
            Done
          </button>
        </div>
      ) : null}
    </Section>
  );
}

export function Devices() {
  const projectId = session()!.projectId;
  const [search, setSearch] = useState('');
  const [deviceClass, setClass] = useState('');
  const [homeId, setHome] = useState('');
  const [tag, setTag] = useState('');
  const [status, setStatus] = useState('');
  const [skip, setSkip] = useState(0);
  const query = qs({ projectId, search, deviceClass, homeId, tag, isConnected: status === '' ? undefined : status === 'online' });
  const page = useLoad(async () => {
    const found = await list<Device>(`/devices${query}`, skip, LIMIT);
    // the API searches names, tags and descriptions; a number is also tried as a device id
    if (/^\d+$/.test(search.trim()) && skip === 0 && !found.items.some((d) => d.id === Number(search))) {
      const byId = await get<Device>(`/devices/${search.trim()}`).catch(() => undefined);
      if (byId && byId.projectId === projectId) return { items: [byId, ...found.items], total: found.total + 1 };
    }
    return found;
  }, [query, skip]);
  const homes = useHomes(projectId);
  const [live, setLive] = useState<Map<number, { on: boolean; at: string }>>(new Map());
  const del = useAction();

  useEffect(
    () =>
      onEvent((e) => {
        if ((e.eventType === '_deviceConnected_' || e.eventType === '_deviceDisconnected_') && e.originDeviceId) {
          const on = e.eventType === '_deviceConnected_';
          setLive((m) => new Map(m).set(e.originDeviceId!, { on, at: e.timestamp }));
        }
      }),
    [],
  );
  // a fresh page from the server supersedes what the stream said before it
  useEffect(() => setLive(new Map()), [page.data]);

  const filter = (set: (v: string) => void) => (e: Event) => {
    set((e.target as HTMLInputElement).value);
    setSkip(0);
  };
  return (
    <div class="page">
      <h1>Devices</h1>
      <CreateDevice projectId={projectId} homes={homes} onCreated={page.reload} />
      <Section title="All devices">
        <form class="row filters" role="search" aria-label="filter devices" onSubmit={(e) => e.preventDefault()}>
          <Field label="Search">
            <input type="search" name="search" value={search} onInput={filter(setSearch)} placeholder="name, tag or id" />
          </Field>
          <Field label="Class">
            <input name="class" value={deviceClass} onInput={filter(setClass)} />
          </Field>
          <HomeSelect label="Home" homes={homes} value={homeId} onChange={(v) => (setHome(v), setSkip(0))} none="any" />
          <Field label="Tag">
            <input name="tag" value={tag} onInput={filter(setTag)} />
          </Field>
          <Field label="Status">
            <select name="status" value={status} onChange={filter(setStatus)}>
              <option value="">any</option>
              <option value="online">online</option>
              <option value="offline">offline</option>
            </select>
          </Field>
        </form>
        <ErrorBox error={page.error ?? del.error} />
        <div class="scroll">
          <table class="devices">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col" class="wide">
                  Id
                </th>
                <th scope="col" class="wide">
                  Class
                </th>
                <th scope="col">Home</th>
                <th scope="col" class="wide">
                  Tag
                </th>
                <th scope="col">Status</th>
                <th scope="col">Last connect</th>
                <th scope="col">
                  <span class="sr">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {page.data?.items.map((d) => {
                const l = live.get(d.id);
                const on = l ? l.on : !!d.isConnected;
                const last = l?.on ? l.at : d.lastConnectTime;
                return (
                  <tr key={d.id} data-device={d.id}>
                    <td>
                      <a href={href(`devices/${d.id}`)}>{d.name || `device ${d.id}`}</a>
                    </td>
                    <td class="wide">{d.id}</td>
                    <td class="wide">{d.deviceClass}</td>
                    <td data-field="home">{d.homeId === undefined ? '—' : homes.nameOf(d.homeId)}</td>
                    <td class="wide">{d.tag ?? ''}</td>
                    <td class="status" data-status={on ? 'online' : 'offline'}>
                      <span class={on ? 'dot on' : 'dot'} aria-hidden="true" />
                      {on ? 'online' : 'offline'}
                    </td>
                    <td>{when(last)}</td>
                    <td>
                      <ConfirmButton
                        label="Delete"
                        confirm={`Delete device ${d.id}?`}
                        onConfirm={() => del.run(() => send('DELETE', `/devices/${d.id}`)).then(page.reload)}
                      />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        {page.data ? <Pager skip={skip} limit={LIMIT} total={page.data.total} onPage={setSkip} /> : <p class="muted">Loading…</p>}
      </Section>
    </div>
  );
}
