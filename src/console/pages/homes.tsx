// Homes and their members: create and delete homes; add a member by user id or email, change a
// member's role, remove a member.
import { useState } from 'preact/hooks';
import { get, list, qs, send, session } from '../api';
import { ConfirmButton, ErrorBox, Field, Pager, Section, useAction, useLoad, when } from '../ui';

interface Home {
  id: number;
  name: string;
  creationTime?: string;
}
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
              {open === h.id ? <Members home={h} /> : null}
            </li>
          ))}
        </ul>
        {homes.data ? <Pager skip={skip} limit={25} total={homes.data.total} onPage={setSkip} /> : null}
      </Section>
    </div>
  );
}
