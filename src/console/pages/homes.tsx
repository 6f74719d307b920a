// Homes, their members and their devices: create and delete homes; add a member by user id or
// email, change a member's role, remove a member; put a device in the home by its id, take one
// out (a project key: docs/api.md#device-operations). Events reach smart modules only from
// devices in a home (docs/webhooks.md#event-webhook).
import { useState } from 'preact/hooks';
import { get, list, qs, send, session } from '../api';
import { href } from '../router';
import type { Home } from '../home-names';
import type { Device } from './devices';
import { ConfirmButton, ErrorBox, Field, Pager, Section, useAction, useLoad, when } from '../ui';
interface Member {
  userId: number;
  role: string;
  name?: string;
  email?: string;
}

function Members({ home }: { home: Home }) {
  const members = useLoad(() => get<Member[]>(`/homes/${home.id}/members`), [home.id]);
  const [who, setWho] = useState('');
  const [role, setRole] = useState('member');
  const action = useAction();
  return (
    <div class="members">
      <ErrorBox error={members.error ?? action.error} />
      <ul class="plain">
        {members.data?.map((m) => (
          <li key={m.userId} data-member={m.userId}>
            {m.name ?? `user ${m.userId}`} {m.email ? <span class="muted">{m.email}</span> : null}{' '}
            <select
              aria-label={`role of user ${m.userId}`}
              value={m.role}
              onChange={(e) =>
                action.run(() => send('PATCH', `/homes/${home.id}/members/${m.userId}`, { role: (e.target as HTMLSelectElement).value })).then(members.reload)
              }
            >
              <option value="owner">owner</option>
              <option value="member">member</option>
            </select>{' '}
            <ConfirmButton
              label="Remove"
              confirm={`Remove user ${m.userId}?`}
              onConfirm={() => action.run(() => send('DELETE', `/homes/${home.id}/members/${m.userId}`)).then(members.reload)}
            />
          </li>
        ))}
      </ul>
      <form
        class="row"
        aria-label={`add a member to ${home.name}`}
        onSubmit={(e) => {
          e.preventDefault();
          const body = /^\d+$/.test(who.trim()) ? { userId: Number(who.trim()), role } : { email: who.trim(), role };
          action.run(() => send('POST', `/homes/${home.id}/members`, body)).then((ok) => ok && (setWho(''), members.reload()));
        }}
      >
        <Field label="User id or email">
          <input name="member" required value={who} onInput={(e) => setWho((e.target as HTMLInputElement).value)} />
        </Field>
        <Field label="Role">
          <select name="role" value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value)}>
            <option value="member">member</option>
            <option value="owner">owner</option>
          </select>
        </Field>
        <button type="submit">Add member</button>
      </form>
    </div>
  );
}

const DEVICES = 20;

function HomeDevices({ home }: { home: Home }) {
  const projectId = session()!.projectId;
  const canMove = session()!.kind === 'project key';
  const [skip, setSkip] = useState(0);
  const devices = useLoad(() => list<Device>(`/devices${qs({ projectId, homeId: home.id })}`, skip, DEVICES), [home.id, skip]);
  const [deviceId, setDeviceId] = useState('');
  const action = useAction();
  const move = (id: number, homeId: number | null) => action.run(() => send('PATCH', `/devices/${id}`, { homeId })).then((ok) => (devices.reload(), ok));
  return (
    <div class="home-devices">
      <h3>Devices</h3>
      <ErrorBox error={devices.error ?? action.error} />
      <ul class="plain">
        {devices.data?.items.map((d) => (
          <li key={d.id} data-home-device={d.id}>
            <a href={href(`devices/${d.id}`)}>{d.name || `device ${d.id}`}</a> <span class="muted">id {d.id}</span>{' '}
            {canMove ? <ConfirmButton label="Take out" confirm={`Take device ${d.id} out of ${home.name}?`} onConfirm={() => move(d.id, null)} /> : null}
          </li>
        ))}
      </ul>
      {devices.data?.total === 0 ? <p class="muted">No devices in this home: their events reach no smart module.</p> : null}
      {devices.data && devices.data.total > 0 ? <Pager skip={skip} limit={DEVICES} total={devices.data.total} onPage={setSkip} /> : null}
      {canMove ? (
        <form
          class="row"
          aria-label={`put a device in ${home.name}`}
          onSubmit={(e) => {
            e.preventDefault();
            const id = deviceId.trim();
            if (!/^[1-9]\d{0,9}$/.test(id)) {
              action.run(async () => {
                throw new Error(`“${id}” is not a device id: device ids are positive whole numbers.`);
              });
              return;
            }
            move(Number(id), home.id).then((ok) => ok && setDeviceId(''));
          }}
        >
          <Field label="Device id" hint="a device in another home moves here">
            <input name="deviceId" inputMode="numeric" required value={deviceId} onInput={(e) => setDeviceId((e.target as HTMLInputElement).value)} />
          </Field>
          <button type="submit" disabled={action.busy}>
            Put in this home
          </button>
        </form>
      ) : null}
    </div>
  );
}

export function Homes() {
  const projectId = session()!.projectId;
  const [skip, setSkip] = useState(0);
  const homes = useLoad(() => list<Home>(`/homes${qs({ projectId })}`, skip, 25), [projectId, skip]);
  const [name, setName] = useState('');
  const [open, setOpen] = useState<number>();
  const action = useAction();
  return (
    <div class="page">
      <h1>Homes</h1>
      <Section title="Add a home">
        <form
          class="row"
          aria-label="add a home"
          onSubmit={(e) => {
            e.preventDefault();
            action.run(() => send('POST', '/homes', { name, projectId })).then((ok) => ok && (setName(''), homes.reload()));
          }}
        >
          <Field label="Name">
            <input name="homeName" required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          </Field>
          <button type="submit" class="primary" disabled={action.busy}>
            Create
          </button>
        </form>
        <ErrorBox error={action.error} />
      </Section>
      <Section title="Homes">
        <ErrorBox error={homes.error} />
        <ul class="plain">
          {homes.data?.items.map((h) => (
            <li key={h.id} data-home={h.id}>
              <button type="button" class="link" aria-expanded={open === h.id} onClick={() => setOpen(open === h.id ? undefined : h.id)}>
                {h.name}
              </button>{' '}
              <span class="muted">
                id {h.id} · {when(h.creationTime)}
              </span>{' '}
              <ConfirmButton
                label="Delete"
                confirm={`Delete home ${h.name}?`}
                onConfirm={() => action.run(() => send('DELETE', `/homes/${h.id}`)).then(homes.reload)}
              />
              {open === h.id ? (
                <>
                  <h3>Members</h3>
                  <Members home={h} />
                  <HomeDevices home={h} />
                </>
              ) : null}
            </li>
          ))}
        </ul>
        {homes.data ? <Pager skip={skip} limit={25} total={homes.data.total} onPage={setSkip} /> : null}
      </Section>
    </div>
  );
}
