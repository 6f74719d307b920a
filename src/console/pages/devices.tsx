// Devices: the project's devices with search and filters (online, class, tag, home or none) kept in
// the hash, paged on the server by id (afterId, no count) so it stays fast at 100,000; the status cell
// follows the live stream (_deviceConnected_ / _deviceDisconnected_) without a reload. Create a
// device (its key and claim code shown once) and delete with a confirmation.
import { useEffect, useRef, useState } from 'preact/hooks';
import { get, list, qs, send, session } from '../api';
import { eventsReceived, onEvent } from '../stream';
import { href } from '../router';
import { HomeSelect, useHomes, type Homes } from '../home-names';
import { RowForm, SelectField, TextField, type Choice } from '../forms';
import { Table, type Column } from '../lists';
import { DeleteButton, ErrorBox, Secret, Section, ShownOnce, useAction, useLoad, when } from '../ui';

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
const SEARCH_PAUSE_MS = 250;
const STATUSES: Choice[] = [
  ['', 'any'],
  ['online', 'online'],
  ['offline', 'offline'],
];
const HOME_FILTERS: Choice[] = [
  ['', 'any'],
  ['in', 'in a home'],
  ['none', 'in no home'],
];
const COLUMNS: Column[] = [
  'Name',
  { label: 'Id', class: 'wide' },
  { label: 'Class', class: 'wide' },
  'Home',
  { label: 'Tag', class: 'wide' },
  'Status',
  'Last connect',
  { label: 'Actions', hidden: true },
];

/** online or offline, with its dot */
export function Presence({ on }: { on: boolean | undefined }) {
  return (
    <>
      <span class={on ? 'dot on' : 'dot'} aria-hidden="true" />
      {on ? 'online' : 'offline'}
    </>
  );
}

function CreateDevice({ projectId, homes, onCreated }: { projectId: number; homes: Homes; onCreated: () => void }) {
  const classes = useLoad(() => get<{ id: string }[]>(`/projects/${projectId}/deviceClasses`), [projectId]);
  const [deviceClass, setClass] = useState('');
  const [name, setName] = useState('');
  const [tag, setTag] = useState('');
  const [homeId, setHome] = useState('');
  const [created, setCreated] = useState<Device>();
  const action = useAction();
  const cls = deviceClass || classes.data?.[0]?.id || '';
  const create = async () =>
    setCreated(
      await send<Device>('POST', '/devices', {
        projectId,
        deviceClass: cls,
        name: name || undefined,
        tag: tag || undefined,
        homeId: homeId === '' ? undefined : Number(homeId),
      }),
    );
  return (
    <Section title="Add a device">
      <RowForm
        label="add a device"
        action={action}
        error={classes.error}
        submit="Create"
        disabled={!cls}
        onSubmit={create}
        onDone={() => (setName(''), onCreated())}
      >
        <SelectField label="Class" name="deviceClass" value={cls} choices={classes.data?.map((c) => c.id) ?? []} onValue={setClass} />
        <TextField label="Name" name="name" value={name} onValue={setName} />
        <TextField label="Tag" name="tag" value={tag} onValue={setTag} />
        <HomeSelect label="Home" homes={homes} value={homeId} onChange={setHome} />
      </RowForm>
      {created ? (
        <ShownOnce onDone={() => setCreated(undefined)}>
          <p>
            Device <a href={href(`devices/${created.id}`)}>{created.id}</a> created. Its key and claim code are shown once here; an admin can read the key again
            on the device's page.
          </p>
          {created.apiKey ? <Secret label="API key" value={created.apiKey} /> : null}
          {created.claimCode ? <Secret label="Claim code" value={created.claimCode} /> : null}
        </ShownOnce>
      ) : null}
    </Section>
  );
}

/** the list's filters and cursor, kept in the hash after the route (`#/devices?search=lamp&status=online&after=1200`) so a reload or a link shows the same page */
interface ListState {
  search: string;
  deviceClass: string;
  tag: string;
  /** '' any, 'online', 'offline' */
  status: string;
  /** '' any, 'in' in a home, 'none' in no home, or a home id */
  home: string;
  /** the last id of the page before this one; undefined: the first page */
  after?: number;
}

const KEYS: [keyof ListState, string][] = [
  ['search', 'search'],
  ['deviceClass', 'class'],
  ['tag', 'tag'],
  ['status', 'status'],
  ['home', 'home'],
];

function readHash(): ListState {
  const q = new URLSearchParams(location.hash.split('?')[1] ?? '');
  const after = q.get('after');
  const status = q.get('status') ?? '';
  const home = q.get('home') ?? '';
  return {
    search: q.get('search') ?? '',
    deviceClass: q.get('class') ?? '',
    tag: q.get('tag') ?? '',
    status: status === 'online' || status === 'offline' ? status : '',
    home: home === 'in' || home === 'none' || /^[1-9]\d{0,9}$/.test(home) ? home : '',
    after: after && /^[1-9]\d{0,9}$/.test(after) ? Number(after) : undefined,
  };
}

function writeHash(s: ListState): void {
  const q = new URLSearchParams();
  for (const [k, name] of KEYS) if (s[k]) q.set(name, String(s[k]));
  if (s.after !== undefined) q.set('after', String(s.after));
  const text = q.toString();
  // replaceState: no hashchange, no new history entry per keystroke
  history.replaceState(history.state, '', `#/devices${text ? `?${text}` : ''}`);
}

/** the list's state from the hash, following a hash changed from outside (Back, a pasted link) */
function useListState(): [ListState, (s: ListState) => void] {
  const [state, setState] = useState(readHash);
  useEffect(() => {
    const on = () => setState(readHash());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return [
    state,
    (s: ListState) => {
      writeHash(s);
      setState(s);
    },
  ];
}

export function Devices() {
  const projectId = session()!.projectId;
  const [state, setState] = useListState();
  // the search box asks once typing pauses (SEARCH_PAUSE_MS), not per keystroke: a search that
  // matches little reads many rows at 100,000 devices
  const [typed, setTyped] = useState(state.search);
  const latest = useRef(state);
  latest.current = state;
  // a search changed from outside (Back, a pasted link) replaces what is typed; not at mount, where
  // `typed` already starts from it and the effect, which runs after the first paint, would wipe
  // what was typed before it ran
  const searchShown = useRef(state.search);
  useEffect(() => {
    if (state.search === searchShown.current) return;
    searchShown.current = state.search;
    setTyped(state.search);
  }, [state.search]);
  useEffect(() => {
    if (typed === latest.current.search) return;
    const timer = setTimeout(() => {
      setBack([]);
      setState({ ...latest.current, search: typed, after: undefined });
    }, SEARCH_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [typed]);
  const { search, deviceClass, tag, status, home, after } = state;
  // the cursors of the pages before this one, for Previous; a page opened from a link starts with none (Previous goes to the first page)
  const [back, setBack] = useState<(number | undefined)[]>([]);
  useEffect(() => {
    const on = () => setBack([]);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  // pages come by id after a cursor, without the count of all matches (docs/api.md#device-lists):
  // a page costs the same at any depth of 100,000 devices and on every keystroke of a search
  const query = qs({
    projectId,
    search: search.trim(),
    deviceClass,
    tag,
    isConnected: status === '' ? undefined : status === 'online',
    inHome: home === 'in' ? true : home === 'none' ? false : undefined,
    homeId: /^\d+$/.test(home) ? home : undefined,
    afterId: after,
    total: false,
  });
  const page = useLoad(async () => {
    // one more than shown tells whether there is a next page
    const found = await list<Device>(`/devices${query}`, 0, LIMIT + 1);
    const more = found.items.length > LIMIT;
    const items = found.items.slice(0, LIMIT);
    // the API searches names, tags and descriptions; a number is also tried as a device id
    if (/^\d+$/.test(search.trim()) && after === undefined && !items.some((d) => d.id === Number(search))) {
      const byId = await get<Device>(`/devices/${search.trim()}`).catch(() => undefined);
      if (byId && byId.projectId === projectId) return { items: [byId, ...items], more };
    }
    return { items, more };
  }, [query]);
  const homes = useHomes(projectId);
  // presence from the stream, each with its number (eventsReceived) to tell it from what a page read saw
  const [live, setLive] = useState<Map<number, { on: boolean; at: string; n: number }>>(new Map());
  const del = useAction();

  useEffect(
    () =>
      onEvent((e) => {
        if ((e.eventType === '_deviceConnected_' || e.eventType === '_deviceDisconnected_') && e.originDeviceId) {
          const on = e.eventType === '_deviceConnected_';
          const n = eventsReceived();
          setLive((m) => new Map(m).set(e.originDeviceId!, { on, at: e.timestamp, n }));
        }
      }),
    [],
  );
  // a fresh page from the server supersedes what the stream said before its read began, not what
  // arrived while it was in flight (a device that left while the page was read stays offline)
  useEffect(() => setLive((m) => new Map([...m].filter(([, v]) => v.n > page.since))), [page.data]);

  /** a changed filter starts from the first page */
  const filter = (key: keyof ListState) => (v: string) => {
    setBack([]);
    setState({ ...state, [key]: v, after: undefined });
  };
  const items = page.data?.items ?? [];
  const next = () => {
    setBack([...back, after]);
    setState({ ...state, after: items[items.length - 1].id });
  };
  const previous = () => {
    setBack(back.slice(0, -1));
    setState({ ...state, after: back.length ? back[back.length - 1] : undefined });
  };
  return (
    <div class="page">
      <h1>Devices</h1>
      <CreateDevice projectId={projectId} homes={homes} onCreated={page.reload} />
      <Section title="All devices">
        <form class="row filters" role="search" aria-label="filter devices" onSubmit={(e) => e.preventDefault()}>
          <TextField label="Search" type="search" name="search" value={typed} onValue={setTyped} placeholder="name, tag or id" />
          <TextField label="Class" name="class" value={deviceClass} onValue={filter('deviceClass')} />
          <HomeSelect
            label="Home"
            name="home"
            homes={homes}
            value={home}
            onChange={filter('home')}
            current={/^\d+$/.test(home) ? Number(home) : undefined}
            lead={HOME_FILTERS}
          />
          <TextField label="Tag" name="tag" value={tag} onValue={filter('tag')} />
          <SelectField label="Status" name="status" value={status} choices={STATUSES} onValue={filter('status')} />
        </form>
        <ErrorBox error={page.error ?? del.error} />
        <Table class="devices" columns={COLUMNS}>
          {items.map((d) => {
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
                  <Presence on={on} />
                </td>
                <td>{when(last)}</td>
                <td>
                  <DeleteButton confirm={`Delete device ${d.id}?`} action={del} path={`/devices/${d.id}`} onDone={page.reload} />
                </td>
              </tr>
            );
          })}
        </Table>
        {page.data ? (
          <nav class="pager" aria-label="pages">
            <button type="button" disabled={after === undefined} onClick={previous}>
              Previous
            </button>
            <span data-page-size={items.length}>
              {items.length === 0 ? 'no devices' : `${items.length} shown${after === undefined ? '' : ` after id ${after}`}`}
            </span>
            <button type="button" disabled={!page.data.more} onClick={next}>
              Next
            </button>
          </nav>
        ) : (
          <p class="muted">Loading…</p>
        )}
      </Section>
    </div>
  );
}
