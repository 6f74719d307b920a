// Sign in as a user (project, email, password: POST /auth/user) or with a project API key
// (checked with GET /auth). The credential is kept in sessionStorage only. A user who forgot the
// password asks a mailed code from here (docs/concepts.md#accounts).
import { useState } from 'preact/hooks';
import { request, type Session } from '../api';
import { TextField } from '../forms';
import { ErrorBox, useAction } from '../ui';
import { ForgotPassword, ProjectAndEmail } from './account';

interface AuthInfo {
  type: string;
  userId?: number;
  projectId?: number;
  projectKeyName?: string;
}

export function SignIn({ onSignedIn, notice }: { onSignedIn: (s: Session) => void; notice?: string }) {
  const [mode, setMode] = useState<'user' | 'key'>('user');
  const [projectId, setProjectId] = useState('1');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [key, setKey] = useState('');
  const [forgot, setForgot] = useState(false);
  const [told, setTold] = useState<string>();
  const action = useAction();

  const submit = (e: Event) => {
    e.preventDefault();
    action.run(async () => {
      if (mode === 'user') {
        const r = await request<{ token: string; userId: number }>('POST', '/auth/user', { projectId: Number(projectId), email, password }, '');
        onSignedIn({ token: r.body.token, kind: 'user', projectId: Number(projectId), who: String(r.body.userId) });
      } else {
        const token = key.trim();
        const r = await request<AuthInfo>('GET', '/auth', undefined, token);
        if (r.body.type !== 'project key' || !r.body.projectId)
          throw new Error(`This is a ${r.body.type} credential; the console takes a project API key here.`);
        onSignedIn({ token, kind: 'project key', projectId: r.body.projectId, who: r.body.projectKeyName ?? 'key' });
      }
    });
  };

  if (forgot)
    return (
      <ForgotPassword
        projectId={projectId}
        email={email}
        onBack={(t) => {
          setForgot(false);
          setTold(t);
          setPassword('');
        }}
      />
    );
  const shown = told ?? notice;
  return (
    <main class="signin">
      <h1>Hearth console</h1>
      {shown ? (
        <p class="notice" role="status">
          {shown}
        </p>
      ) : null}
      <div role="tablist" class="tabs">
        <button type="button" role="tab" aria-selected={mode === 'user'} onClick={() => setMode('user')}>
          User
        </button>
        <button type="button" role="tab" aria-selected={mode === 'key'} onClick={() => setMode('key')}>
          Project API key
        </button>
      </div>
      <form onSubmit={submit} aria-label="sign in">
        {mode === 'user' ? (
          <>
            <ProjectAndEmail projectId={projectId} email={email} setProjectId={setProjectId} setEmail={setEmail} />
            <TextField label="Password" name="password" type="password" autocomplete="current-password" required value={password} onValue={setPassword} />
          </>
        ) : (
          <TextField
            label="API key"
            hint="the admin key is in data/admin.key after the first start"
            name="apiKey"
            type="password"
            autocomplete="off"
            required
            value={key}
            onValue={setKey}
          />
        )}
        <button type="submit" class="primary" disabled={action.busy}>
          Sign in
        </button>
        <ErrorBox error={action.error} />
      </form>
      {mode === 'user' ? (
        <button type="button" class="link" onClick={() => setForgot(true)}>
          Forgot password?
        </button>
      ) : null}
    </main>
  );
}
