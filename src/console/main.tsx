// The Hearth console: a single page at /console that talks to the public API only (api.ts) and
// watches the live event stream (stream.ts). Pages are chosen by the hash route (router.ts).
import { render, type JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { onExpired, request, session, setSession, type Session } from './api';
import { onStreamState, startStream, stopStream } from './stream';
import { go, href, routeKey, sectionOf, useRoute, type Route } from './router';
import { SignIn } from './pages/sign-in';
import { AccountLink, VerifyBanner, accountPage } from './pages/account';
import { Overview } from './pages/overview';
import { Devices } from './pages/devices';
import { DevicePage } from './pages/device';
import { Homes } from './pages/homes';
import { Classes, Keys, Settings, Users } from './pages/project';
import { Modules, ModulePage } from './pages/modules';
import { Reports } from './pages/reports';
import { Firmware } from './pages/firmware';
import { RolloutPage } from './pages/rollout';
import { Logs } from './pages/logs';
import { NotFound } from './pages/not-found';

const NAV: [string, string][] = [
  ['overview', 'Overview'],
  ['devices', 'Devices'],
  ['homes', 'Homes'],
  ['classes', 'Device classes'],
  ['keys', 'API keys'],
  ['users', 'Users'],
  ['settings', 'Project settings'],
  ['modules', 'Smart modules'],
  ['firmware', 'Firmware'],
  ['reports', 'Reports'],
  ['logs', 'Logs'],
];

/** the page of each route */
const PAGES: { [N in Route['name']]: (r: Extract<Route, { name: N }>) => JSX.Element } = {
  overview: () => <Overview />,
  devices: () => <Devices />,
  device: (r) => <DevicePage id={r.id} />,
  homes: () => <Homes />,
  classes: () => <Classes />,
  keys: () => <Keys />,
  users: () => <Users />,
  settings: () => <Settings />,
  modules: () => <Modules />,
  module: (r) => <ModulePage id={r.id} />,
  firmware: () => <Firmware />,
  rollout: (r) => <RolloutPage id={r.id} />,
  reports: () => <Reports />,
  logs: () => <Logs />,
  'not-found': (r) => <NotFound why={r.why} back={r.back} />,
};

function Live() {
  const [open, setOpen] = useState(false);
  useEffect(() => onStreamState(setOpen), []);
  return (
    <span class={open ? 'live on' : 'live'} title="the live event stream" data-live={open ? 'on' : 'off'}>
      {open ? 'live' : 'connecting…'}
    </span>
  );
}

/** the signed-in user's `verified` (docs/concepts.md#accounts): a banner until the address is verified */
function Unverified({ s }: { s: Session }) {
  const [user, setUser] = useState<{ email: string; verified: boolean }>();
  const load = () => {
    request<{ email: string; verified: boolean }>('GET', `/users/${encodeURIComponent(s.who)}`)
      .then((r) => setUser(r.body))
      .catch(() => undefined);
  };
  useEffect(load, [s.token]);
  if (!user) return null;
  // a marker once known, so a test can tell "verified" from "not loaded yet"
  if (user.verified !== false) return <span hidden data-verified="true" />;
  return <VerifyBanner projectId={s.projectId} email={user.email} onVerified={load} />;
}

function Shell({ s, signOut }: { s: Session; signOut: () => void }) {
  const route = useRoute();
  const [menu, setMenu] = useState(false);
  const place = routeKey(route);
  // the folded menu (phone width) closes on any move, Back/Forward included, not only on its links
  useEffect(() => setMenu(false), [place]);
  const page = sectionOf(route);
  const body = (PAGES[route.name] as (r: Route) => JSX.Element)(route);
  return (
    <div class="shell">
      <header class="top">
        <button type="button" class="menu" aria-expanded={menu} aria-controls="nav" onClick={() => setMenu(!menu)}>
          Menu
        </button>
        <strong class="brand">Hearth</strong>
        <span class="who">
          project {s.projectId} · {s.kind === 'user' ? `user ${s.who}` : `key ${s.who}`}
        </span>
        <Live />
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <nav id="nav" class={menu ? 'side open' : 'side'} aria-label="sections">
        <ul>
          {NAV.map(([path, label]) => (
            <li key={path}>
              <a href={href(path)} aria-current={page === path ? 'page' : undefined} onClick={() => setMenu(false)}>
                {label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {/* keyed on the place: moving to another device or module (link, Back/Forward, typed URL) starts its page afresh */}
      <main id="main" key={place}>
        {s.kind === 'user' ? <Unverified s={s} /> : null}
        {body}
      </main>
    </div>
  );
}

const ENDED = 'Your session has ended. Sign in again.';

function App() {
  const [s, setS] = useState<Session | undefined>(session());
  const [notice, setNotice] = useState<string>();
  useRoute(); // re-render on every hash change
  const account = accountPage();
  /** back to sign-in, saying why */
  const end = (why: string) => {
    stopStream();
    setSession(undefined);
    setS(undefined);
    setNotice(why);
  };
  useEffect(() => onExpired(() => end(ENDED)), []);
  useEffect(() => {
    if (!s) return;
    startStream(() => end(ENDED));
    return () => stopStream();
  }, [s]);
  // the links of the account mails work signed in or not (docs/concepts.md#accounts)
  if (account)
    return (
      <AccountLink
        key={account}
        page={account}
        onBack={(t) => {
          setNotice(t);
          go('overview');
        }}
      />
    );
  if (!s)
    return (
      <SignIn
        notice={notice}
        onSignedIn={(ns) => {
          setSession(ns);
          setNotice(undefined);
          setS(ns);
        }}
      />
    );
  const signOut = async () => {
    if (s.kind === 'user') await request('DELETE', '/userSession').catch(() => undefined);
    end('Signed out.');
    location.hash = '';
  };
  return <Shell s={s} signOut={signOut} />;
}

const root = document.getElementById('app')!;
root.textContent = ''; // the loading line of index.html
render(<App />, root);
