// Homes, their members and their devices: create and delete homes; add a member by user id or
// email, change a member's role, remove a member; put a device in the home by its id, take one
// out (a project key: docs/api.md#device-operations). Events reach smart modules only from
// devices in a home (docs/webhooks.md#event-webhook).
import { useState } from 'preact/hooks';
import { get, qs, send, session } from '../api';
import { href } from '../router';
import type { Home } from '../home-names';
import type { Device } from './devices';
import { RowForm, SelectField, TextField, inputValue } from '../forms';
import { OpenButton, PlainList, usePaged } from '../lists';
import { ConfirmButton, DeleteButton, Section, useAction, useLoad, when } from '../ui';

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
  const path = (m: Member) => `/homes/${home.id}/members/${m.userId}`;
  const add = () => send('POST', `/homes/${home.id}/members`, /^\d+$/.test(who.trim()) ? { userId: Number(who.trim()), role } : { email: who.trim(), role });
  return (
    <div class="members">
      <PlainList
        items={members.data}
        error={members.error ?? action.error}
        row={(m) => (
          <li key={m.userId} data-member={m.userId}>
            {m.name ?? `user ${m.userId}`} {m.email ? <span class="muted">{m.email}</span> : null}{' '}
            <select
              aria-label={`role of user ${m.userId}`}
              value={m.role}
              onChange={(e) => action.run(() => send('PATCH', path(m), { role: inputValue(e) })).then(members.reload)}
            >
              <option value="owner">owner</option>
              <option value="member">member</option>
            </select>{' '}
            <DeleteButton label="Remove" confirm={`Remove user ${m.userId}?`} action={action} path={path(m)} onDone={members.reload} />
          </li>
        )}
      />
      <RowForm
        label={`add a member to ${home.name}`}
        action={action}
        showErrors={false}
        submit="Add member"
        primary={false}
        onSubmit={add}
        onDone={() => (setWho(''), members.reload())}
      >
        <TextField label="User id or email" name="member" required value={who} onValue={setWho} />
        <SelectField label="Role" name="role" value={role} choices={['member', 'owner']} onValue={setRole} />
      </RowForm>
    </div>
  );
}

const DEVICES = 20;

function HomeDevices({ home }: { home: Home }) {
  const projectId = session()!.projectId;
  const canMove = session()!.kind === 'project key';
  const devices = usePaged<Device>(`/devices${qs({ projectId, homeId: home.id })}`, DEVICES);
  const [deviceId, setDeviceId] = useState('');
  const action = useAction();
  const move = (id: number, homeId: number | null) => action.run(() => send('PATCH', `/devices/${id}`, { homeId })).then((ok) => (devices.reload(), ok));
  const putIn = async () => {
    const id = deviceId.trim();
    if (!/^[1-9]\d{0,9}$/.test(id)) throw new Error(`“${id}” is not a device id: device ids are positive whole numbers.`);
    await send('PATCH', `/devices/${id}`, { homeId: home.id });
  };
  return (
    <div class="home-devices">
      <h3>Devices</h3>
      <PlainList
        items={devices.data?.items}
        error={devices.error ?? action.error}
        row={(d) => (
          <li key={d.id} data-home-device={d.id}>
            <a href={href(`devices/${d.id}`)}>{d.name || `device ${d.id}`}</a> <span class="muted">id {d.id}</span>{' '}
            {canMove ? <ConfirmButton label="Take out" confirm={`Take device ${d.id} out of ${home.name}?`} onConfirm={() => move(d.id, null)} /> : null}
          </li>
        )}
      />
      {devices.data?.total === 0 ? <p class="muted">No devices in this home: their events reach no smart module.</p> : devices.pager}
      {canMove ? (
        <RowForm
          label={`put a device in ${home.name}`}
          action={action}
          showErrors={false}
          submit="Put in this home"
          primary={false}
          onSubmit={putIn}
          onDone={() => (setDeviceId(''), devices.reload())}
        >
          <TextField
            label="Device id"
            hint="a device in another home moves here"
            name="deviceId"
            inputMode="numeric"
            required
            value={deviceId}
            onValue={setDeviceId}
          />
        </RowForm>
      ) : null}
    </div>
  );
}

export function Homes() {
  const projectId = session()!.projectId;
  const homes = usePaged<Home>(`/homes${qs({ projectId })}`, 25);
  const [name, setName] = useState('');
  const [open, setOpen] = useState<number>();
  const action = useAction();
  return (
    <div class="page">
      <h1>Homes</h1>
      <Section title="Add a home">
        <RowForm
          label="add a home"
          action={action}
          submit="Create"
          onSubmit={() => send('POST', '/homes', { name, projectId })}
          onDone={() => (setName(''), homes.reload())}
        >
          <TextField label="Name" name="homeName" required value={name} onValue={setName} />
        </RowForm>
      </Section>
      <Section title="Homes">
        <PlainList
          items={homes.data?.items}
          error={homes.error}
          row={(h) => (
            <li key={h.id} data-home={h.id}>
              <OpenButton id={h.id} open={open} onOpen={setOpen}>
                {h.name}
              </OpenButton>{' '}
              <span class="muted">
                id {h.id} · {when(h.creationTime)}
              </span>{' '}
              <DeleteButton confirm={`Delete home ${h.name}?`} action={action} path={`/homes/${h.id}`} onDone={homes.reload} />
              {open === h.id ? (
                <>
                  <h3>Members</h3>
                  <Members home={h} />
                  <HomeDevices home={h} />
                </>
              ) : null}
            </li>
          )}
        />
        {homes.pager}
      </Section>
    </div>
  );
}
