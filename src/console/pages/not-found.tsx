// The not-found page: an address that names nothing (router.ts), or a device or module the API
// does not know. It says why in words and links back to the section it came from.
import { href, type SectionName } from '../router';

const LABELS: Record<SectionName, string> = {
  overview: 'Overview',
  devices: 'Devices',
  homes: 'Homes',
  classes: 'Device classes',
  keys: 'API keys',
  users: 'Users',
  modules: 'Smart modules',
  firmware: 'Firmware',
  reports: 'Reports',
  logs: 'Logs',
  settings: 'Project settings',
};

export function NotFound({ why, back }: { why: string; back: SectionName }) {
  return (
    <div class="page" data-not-found>
      <h1>Not found</h1>
      <p role="alert">{why}</p>
      <p>
        <a href={href(back)}>← {LABELS[back]}</a>
      </p>
    </div>
  );
}
