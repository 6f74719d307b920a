// The project's device classes, API keys (a new key is shown once) and users.
import { useState } from 'preact/hooks';
import { get, qs, send, session } from '../api';
import { RowForm, SelectField, TextField } from '../forms';
import { PlainList, usePaged } from '../lists';
import { DeleteButton, ErrorBox, Secret, Section, ShownOnce, useAction, useLoad, when } from '../ui';

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
        <RowForm
          label="add a device class"
          action={action}
          submit="Create"
          onSubmit={() => send('POST', `/projects/${projectId}/deviceClasses`, { id, name: name || id })}
          onDone={() => (setId(''), setName(''), classes.reload())}
        >
          <TextField label="Id" name="classId" required value={id} onValue={setId} />
          <TextField label="Name" name="className" value={name} onValue={setName} />
        </RowForm>
      </Section>
      <Section title="Classes">
        <PlainList
          items={classes.data}
          error={classes.error}
          row={(c) => (
            <li key={c.id}>
              <code>{c.id}</code> {c.name} <span class="muted">{c.description}</span>{' '}
              <DeleteButton
                confirm={`Delete class ${c.id}?`}
                action={action}
                path={`/projects/${projectId}/deviceClasses/${encodeURIComponent(c.id)}`}
                onDone={classes.reload}
              />
            </li>
          )}
        />
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
        <RowForm
          layout="stack"
          label="create an API key"
          action={action}
          submit="Create"
          disabled={scopes.length === 0}
          onSubmit={async () => setCreated(await send('POST', `/projects/${projectId}/apiKeys`, { name, scopes }))}
          onDone={() => (setName(''), keys.reload())}
        >
          <TextField label="Name" name="keyName" required value={name} onValue={setName} />
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
        </RowForm>
        {created ? (
          <ShownOnce onDone={() => setCreated(undefined)}>
            <p>The key is shown once: copy it now.</p>
            <Secret label="Key" value={created.key ?? created.apiKey ?? ''} />
          </ShownOnce>
        ) : null}
      </Section>
      <Section title="Keys">
        <PlainList
          items={keys.data}
          error={keys.error}
          row={(k) => (
            <li key={k.id}>
              <strong>{k.name}</strong> <span class="muted">{k.scopes.join(', ')}</span> <span class="muted">{when(k.creationTime)}</span>{' '}
              <DeleteButton
                label="Revoke"
                confirm={`Revoke ${k.name}? Its open connections close.`}
                action={action}
                path={`/projects/${projectId}/apiKeys/${encodeURIComponent(k.id)}`}
                onDone={keys.reload}
              />
            </li>
          )}
        />
      </Section>
    </div>
  );
}

const NO_USER = { name: '', email: '', password: '' };

export function Users() {
  const projectId = session()!.projectId;
  const [search, setSearch] = useState('');
  const users = usePaged<{ id: number; name: string; email: string; canCreateDevices?: boolean }>(`/users${qs({ projectId, search })}`, 25);
  const [form, setForm] = useState(NO_USER);
  const action = useAction();
  const set = (k: keyof typeof form) => (v: string) => setForm({ ...form, [k]: v });
  return (
    <div class="page">
      <h1>Users</h1>
      <Section title="Add a user">
        <RowForm
          label="add a user"
          action={action}
          submit="Create"
          onSubmit={() => send('POST', '/users', { projectId, ...form })}
          onDone={() => (setForm(NO_USER), users.reload())}
        >
          <TextField label="Name" name="userName" required value={form.name} onValue={set('name')} />
          <TextField label="Email" name="userEmail" type="email" required value={form.email} onValue={set('email')} />
          <TextField
            label="Password"
            name="userPassword"
            type="password"
            autocomplete="new-password"
            required
            value={form.password}
            onValue={set('password')}
          />
        </RowForm>
      </Section>
      <Section title="Users">
        <TextField label="Search" type="search" value={search} onValue={setSearch} />
        <PlainList
          items={users.data?.items}
          error={users.error}
          row={(u) => (
            <li key={u.id}>
              <strong>{u.name}</strong> <span class="muted">{u.email}</span> <span class="muted">id {u.id}</span>{' '}
              <DeleteButton confirm={`Delete ${u.email}?`} action={action} path={`/users/${u.id}`} onDone={users.reload} />
            </li>
          )}
        />
        {users.pager}
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
            <SelectField
              label="Command actions"
              hint='"spec": lowercase actions only (SPEC §2.8); "mode": camelCase too, as MODE firmware sends (doEcho, startDiscovery)'
              name="commandActions"
              value={p.commandActions}
              choices={['spec', 'mode']}
              disabled={action.busy}
              onValue={(v) => change({ commandActions: v as 'spec' | 'mode' })}
            />
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
