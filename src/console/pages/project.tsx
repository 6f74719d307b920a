// The project's device classes, API keys (a new key is shown once) and users.
import { useState } from 'preact/hooks';
import { get, list, qs, send, session } from '../api';
import { ConfirmButton, ErrorBox, Field, Pager, Secret, Section, useAction, useLoad, when } from '../ui';

const SCOPES = ['admin', 'devices', 'commands', 'events', 'kv', 'logs', 'users', 'homes', 'modules', 'data', 'reports'];

export function Classes() {
  const projectId = session()!.projectId;
  const classes = useLoad(() => get<{ id: string; name?: string; description?: string }[]>(`/projects/${projectId}/deviceClasses`), [projectId]);
  const [id, setId] = useState('');
  const [name, setName] = useState('');
  const action = useAction();
  return (
    <div class="page">
      <h1>Device classes</h1>
      <Section title="Add a class">
        <form
          class="row"
          aria-label="add a device class"
          onSubmit={(e) => {
            e.preventDefault();
            action
              .run(() => send('POST', `/projects/${projectId}/deviceClasses`, { id, name: name || id }))
              .then((ok) => ok && (setId(''), setName(''), classes.reload()));
          }}
        >
          <Field label="Id">
            <input name="classId" required value={id} onInput={(e) => setId((e.target as HTMLInputElement).value)} />
          </Field>
          <Field label="Name">
            <input name="className" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          </Field>
          <button type="submit" class="primary">
            Create
          </button>
        </form>
        <ErrorBox error={action.error} />
      </Section>
      <Section title="Classes">
        <ErrorBox error={classes.error} />
        <ul class="plain">
          {classes.data?.map((c) => (
            <li key={c.id}>
              <code>{c.id}</code> {c.name} <span class="muted">{c.description}</span>{' '}
              <ConfirmButton
                label="Delete"
                confirm={`Delete class ${c.id}?`}
                onConfirm={() => action.run(() => send('DELETE', `/projects/${projectId}/deviceClasses/${encodeURIComponent(c.id)}`)).then(classes.reload)}
              />
            </li>
          ))}
        </ul>
      </Section>
    </div>
  );
}

export function Keys() {
  const projectId = session()!.projectId;
  const keys = useLoad(() => get<{ id: string; name: string; scopes: string[]; creationTime?: string }[]>(`/projects/${projectId}/apiKeys`), [projectId]);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(['devices']);
  const [created, setCreated] = useState<{ key?: string; apiKey?: string; id: string }>();
  const action = useAction();
  return (
    <div class="page">
      <h1>Project API keys</h1>
      <Section title="Create a key">
        <form
          aria-label="create an API key"
          onSubmit={(e) => {
            e.preventDefault();
            action.run(async () => {
              setCreated(await send('POST', `/projects/${projectId}/apiKeys`, { name, scopes }));
              setName('');
              keys.reload();
            });
          }}
        >
          <Field label="Name">
            <input name="keyName" required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          </Field>
          <fieldset>
            <legend>Scopes</legend>
            {SCOPES.map((s) => (
              <label key={s} class="check">
                <input
                  type="checkbox"
                  checked={scopes.includes(s)}
                  onChange={(e) => setScopes((e.target as HTMLInputElement).checked ? [...scopes, s] : scopes.filter((x) => x !== s))}
                />{' '}
                {s}
              </label>
            ))}
          </fieldset>
          <button type="submit" class="primary" disabled={scopes.length === 0}>
            Create
          </button>
        </form>
        <ErrorBox error={action.error} />
        {created ? (
          <div class="once" role="status">
            <p>The key is shown once: copy it now.</p>
            <Secret label="Key" value={created.key ?? created.apiKey ?? ''} />
            <button type="button" onClick={() => setCreated(undefined)}>
              Done
            </button>
          </div>
        ) : null}
      </Section>
      <Section title="Keys">
        <ErrorBox error={keys.error} />
        <ul class="plain">
          {keys.data?.map((k) => (
            <li key={k.id}>
              <strong>{k.name}</strong> <span class="muted">{k.scopes.join(', ')}</span> <span class="muted">{when(k.creationTime)}</span>{' '}
              <ConfirmButton
                label="Revoke"
                confirm={`Revoke ${k.name}? Its open connections close.`}
                onConfirm={() => action.run(() => send('DELETE', `/projects/${projectId}/apiKeys/${encodeURIComponent(k.id)}`)).then(keys.reload)}
              />
            </li>
          ))}
        </ul>
      </Section>
    </div>
  );
}

export function Users() {
  const projectId = session()!.projectId;
  const [search, setSearch] = useState('');
  const [skip, setSkip] = useState(0);
  const users = useLoad(
    () => list<{ id: number; name: string; email: string; canCreateDevices?: boolean }>(`/users${qs({ projectId, search })}`, skip, 25),
    [projectId, search, skip],
  );
  const [form, setForm] = useState({ name: '', email: '', password: '' });
  const action = useAction();
  const set = (k: keyof typeof form) => (e: Event) => setForm({ ...form, [k]: (e.target as HTMLInputElement).value });
  return (
    <div class="page">
      <h1>Users</h1>
      <Section title="Add a user">
        <form
          class="row"
          aria-label="add a user"
          onSubmit={(e) => {
            e.preventDefault();
            action
              .run(() => send('POST', '/users', { projectId, ...form }))
              .then((ok) => ok && (setForm({ name: '', email: '', password: '' }), users.reload()));
          }}
        >
          <Field label="Name">
            <input name="userName" required value={form.name} onInput={set('name')} />
          </Field>
          <Field label="Email">
            <input name="userEmail" type="email" required value={form.email} onInput={set('email')} />
          </Field>
          <Field label="Password">
            <input name="userPassword" type="password" autocomplete="new-password" required value={form.password} onInput={set('password')} />
          </Field>
          <button type="submit" class="primary">
            Create
          </button>
        </form>
        <ErrorBox error={action.error} />
      </Section>
      <Section title="Users">
        <Field label="Search">
          <input type="search" value={search} onInput={(e) => (setSearch((e.target as HTMLInputElement).value), setSkip(0))} />
        </Field>
        <ErrorBox error={users.error} />
        <ul class="plain">
          {users.data?.items.map((u) => (
            <li key={u.id}>
              <strong>{u.name}</strong> <span class="muted">{u.email}</span> <span class="muted">id {u.id}</span>{' '}
              <ConfirmButton
                label="Delete"
                confirm={`Delete ${u.email}?`}
                onConfirm={() => action.run(() => send('DELETE', `/users/${u.id}`)).then(users.reload)}
              />
            </li>
          ))}
        </ul>
        {users.data ? <Pager skip={skip} limit={25} total={users.data.total} onPage={setSkip} /> : null}
      </Section>
    </div>
  );
}

export interface ProjectSettings {
  id: number;
  name: string;
  allowUserSignup: boolean;
  verifyEmails: boolean;
  commandActions: 'spec' | 'mode';
}

/** the project's settings (GET /projects/{id}), or undefined when the credential may not read them (a user) */
export const loadProject = (projectId: number) => get<ProjectSettings>(`/projects/${projectId}`).catch(() => undefined);

/**
 * The project's settings (PATCH /projects/{id}, scope admin): self-signup, email verification
 * (docs/concepts.md#accounts: needs a mail server, the service says so otherwise) and which
 * command actions the project accepts (docs/concepts.md#commands: "spec" lowercase, "mode" camelCase too).
 */
export function Settings() {
  const projectId = session()!.projectId;
  const project = useLoad(() => get<ProjectSettings>(`/projects/${projectId}`), [projectId]);
  const action = useAction();
  const [saved, setSaved] = useState(false);
  // the control shows the new value at once (a controlled checkbox would otherwise flip back until
  // the PATCH answers) and returns to the stored one when the service refuses it
  const change = (patch: Partial<ProjectSettings>) => {
    const before = project.data!;
    setSaved(false);
    project.set({ ...before, ...patch });
    action.run(async () => {
      try {
        project.set(await send<ProjectSettings>('PATCH', `/projects/${projectId}`, patch));
      } catch (err) {
        project.set(before);
        throw err;
      }
      setSaved(true);
    });
  };
  const p = project.data;
  return (
    <div class="page">
      <h1>Project settings</h1>
      <ErrorBox error={project.error} />
      {p ? (
        <Section title={`Project ${p.id}: ${p.name}`}>
          <form aria-label="project settings" onSubmit={(e) => e.preventDefault()}>
            {TOGGLES.map((t) => (
              <Toggle key={t.name} {...t} checked={p[t.name]} busy={action.busy} onChange={() => change({ [t.name]: !p[t.name] })} />
            ))}
            <Field
              label="Command actions"
              hint='"spec": lowercase actions only (SPEC §2.8); "mode": camelCase too, as MODE firmware sends (doEcho, startDiscovery)'
            >
              <select
                name="commandActions"
                value={p.commandActions}
                disabled={action.busy}
                onChange={(e) => change({ commandActions: (e.target as HTMLSelectElement).value as 'spec' | 'mode' })}
              >
                <option value="spec">spec</option>
                <option value="mode">mode</option>
              </select>
            </Field>
          </form>
          {saved ? (
            <p class="ok" role="status">
              Saved.
            </p>
          ) : null}
          <ErrorBox error={action.error} />
        </Section>
      ) : null}
    </div>
  );
}

/** the project settings that are on or off, with what each means */
const TOGGLES: readonly { name: 'allowUserSignup' | 'verifyEmails'; label: string; hint: string }[] = [
  { name: 'allowUserSignup', label: 'Allow self-signup', hint: 'POST /users without a credential' },
  {
    name: 'verifyEmails',
    label: 'Verify emails',
    hint: 'self-signups are mailed a code and stay unverified until they enter it; needs a mail server',
  },
];

function Toggle(props: { name: string; label: string; hint: string; checked: boolean; busy: boolean; onChange: () => void }) {
  return (
    <label class="field">
      <span>
        <input type="checkbox" name={props.name} checked={props.checked} disabled={props.busy} onChange={props.onChange} /> {props.label}
      </span>
      <small class="hint">{props.hint}</small>
    </label>
  );
}
