// Account pages reached without signing in (docs/concepts.md#accounts): "forgot password" (ask a
// mailed code, then set a new password with it) and the pages the account mails link to,
// `#/verify?projectId&email&token` and `#/reset?projectId&email&token`, prefilled from the link.
// Asking for a mail answers the same whether or not the address has an account, so the pages say
// "if an account exists" and never more.
import { useState } from 'preact/hooks';
import { request, session } from '../api';
import { TextField } from '../forms';
import { ErrorBox, useAction } from '../ui';

/** the account page a location hash names (`#/verify?…`, `#/reset?…`), read apart from the sections' router */
export function accountPage(): 'verify' | 'reset' | undefined {
  const m = /^#\/?(verify|reset)\/?(\?|$)/.exec(location.hash);
  return m ? (m[1] as 'verify' | 'reset') : undefined;
}

/** the `?a=b` part of the hash route, as the account mails write it */
export function routeParams(): URLSearchParams {
  return new URLSearchParams(location.hash.split('?')[1] ?? '');
}

/** the project and email fields of the sign-in page and the account forms */
export function ProjectAndEmail(p: { projectId: string; email: string; setProjectId: (v: string) => void; setEmail: (v: string) => void }) {
  return (
    <>
      <TextField label="Project id" name="projectId" inputMode="numeric" required value={p.projectId} onValue={p.setProjectId} />
      <TextField label="Email" name="email" type="email" autocomplete="username" required value={p.email} onValue={p.setEmail} />
    </>
  );
}

/** the code an account mail holds */
function CodeField({ value, onValue, hint = true }: { value: string; onValue: (v: string) => void; hint?: boolean }) {
  return (
    <TextField
      label="Code"
      hint={hint ? 'the code in the mail, like ABCD-1234' : undefined}
      name="token"
      autocomplete="one-time-code"
      required
      value={value}
      onValue={onValue}
    />
  );
}

/** step two of a reset: the mailed code and the new password (POST /auth/user/passwordReset) */
function ResetForm(p: {
  projectId: string;
  email: string;
  token?: string;
  setProjectId: (v: string) => void;
  setEmail: (v: string) => void;
  onDone: () => void;
}) {
  const [token, setToken] = useState(p.token ?? '');
  const [password, setPassword] = useState('');
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    action.run(async () => {
      await request('POST', '/auth/user/passwordReset', { projectId: Number(p.projectId), email: p.email, token: token.trim(), password }, '');
      p.onDone();
    });
  };
  return (
    <form onSubmit={submit} aria-label="new password">
      <ProjectAndEmail {...p} />
      <CodeField value={token} onValue={setToken} />
      <TextField label="New password" name="newPassword" type="password" autocomplete="new-password" required value={password} onValue={setPassword} />
      <button type="submit" class="primary" disabled={action.busy}>
        Set the new password
      </button>
      <ErrorBox error={action.error} />
    </form>
  );
}

/** "Forgot password?" from the sign-in page: ask a code by mail, then set the new password with it */
export function ForgotPassword({ projectId: pid, email: mail, onBack }: { projectId: string; email: string; onBack: (notice?: string) => void }) {
  const [projectId, setProjectId] = useState(pid);
  const [email, setEmail] = useState(mail);
  const [sent, setSent] = useState(false);
  const action = useAction();
  const ask = (e: Event) => {
    e.preventDefault();
    action.run(async () => {
      await request('POST', '/auth/user/passwordReset/start', { projectId: Number(projectId), email }, '');
      setSent(true);
    });
  };
  const fields = { projectId, email, setProjectId, setEmail };
  return (
    <main class="signin">
      <h1>Reset your password</h1>
      {sent ? (
        <>
          <p class="notice" role="status">
            If {email} has an account in project {projectId}, a mail with a code is on its way (valid one hour). Enter it below.
          </p>
          <ResetForm {...fields} onDone={() => onBack('Your password is changed. Sign in with the new one.')} />
        </>
      ) : (
        <form onSubmit={ask} aria-label="reset password">
          <ProjectAndEmail {...fields} />
          <button type="submit" class="primary" disabled={action.busy}>
            Mail me a code
          </button>
          <ErrorBox error={action.error} />
        </form>
      )}
      <button type="button" class="link" onClick={() => onBack()}>
        Back to sign-in
      </button>
    </main>
  );
}

/** `#/reset?…` and `#/verify?…`, the links of the account mails */
export function AccountLink({ page, onBack }: { page: 'reset' | 'verify'; onBack: (notice?: string) => void }) {
  const q = routeParams();
  const [projectId, setProjectId] = useState(q.get('projectId') ?? String(session()?.projectId ?? '1'));
  const [email, setEmail] = useState(q.get('email') ?? '');
  const [token, setToken] = useState(q.get('token') ?? '');
  const action = useAction();
  const fields = { projectId, email, setProjectId, setEmail };
  if (page === 'reset')
    return (
      <main class="signin">
        <h1>Choose a new password</h1>
        <ResetForm {...fields} token={token} onDone={() => onBack('Your password is changed. Sign in with the new one.')} />
        <button type="button" class="link" onClick={() => onBack()}>
          Back to the console
        </button>
      </main>
    );
  const verify = (e: Event) => {
    e.preventDefault();
    action.run(async () => {
      await request('POST', '/auth/user/emailVerification', { projectId: Number(projectId), email, token: token.trim() }, '');
      onBack('Your email address is verified.');
    });
  };
  return (
    <main class="signin">
      <h1>Verify your email address</h1>
      <form onSubmit={verify} aria-label="verify email">
        <ProjectAndEmail {...fields} />
        <CodeField value={token} onValue={setToken} />
        <button type="submit" class="primary" disabled={action.busy}>
          Verify
        </button>
        <ErrorBox error={action.error} />
      </form>
      <button type="button" class="link" onClick={() => onBack()}>
        Back to the console
      </button>
    </main>
  );
}

/** shown to a signed-in user whose address is not verified yet: mail a code again, or enter it */
export function VerifyBanner({ projectId, email, onVerified }: { projectId: number; email: string; onVerified: () => void }) {
  const [token, setToken] = useState('');
  const [sent, setSent] = useState(false);
  const action = useAction();
  const again = () =>
    action.run(async () => {
      await request('POST', '/auth/user/emailVerification/start', { projectId, email }, '');
      setSent(true);
    });
  const verify = (e: Event) => {
    e.preventDefault();
    action.run(async () => {
      await request('POST', '/auth/user/emailVerification', { projectId, email, token: token.trim() }, '');
      onVerified();
    });
  };
  return (
    <section class="banner" role="region" aria-label="email verification">
      <p>
        Your email address {email} is not verified yet. Enter the code from the mail we sent you.
        {sent ? ' A new code is on its way; the older one no longer works.' : ''}
      </p>
      <form onSubmit={verify} aria-label="verify email" class="inline">
        <CodeField value={token} onValue={setToken} hint={false} />
        <button type="submit" class="primary" disabled={action.busy}>
          Verify
        </button>
        <button type="button" disabled={action.busy} onClick={again}>
          Send again
        </button>
      </form>
      <ErrorBox error={action.error} />
    </section>
  );
}
