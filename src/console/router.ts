// Hash routes (`#/devices/12`): the console is one page served at /console, so a reload or a
// shared link lands on the same view without the server knowing the console's paths.
// A route is checked before any page sees it: a parameter that cannot name anything (a device id
// that is not a positive whole number, a module id outside its pattern, broken %-encoding, an
// unknown section) shows the not-found page; a page never asks the API with it.
import { useEffect, useState } from 'preact/hooks';

export const SECTIONS = ['overview', 'devices', 'homes', 'classes', 'keys', 'users', 'modules', 'firmware', 'reports', 'logs', 'settings'] as const;
export type SectionName = (typeof SECTIONS)[number];

export type Route =
  | { name: SectionName }
  | { name: 'device'; id: number }
  | { name: 'module'; id: string }
  | { name: 'rollout'; id: string }
  | { name: 'not-found'; path: string; why: string; back: SectionName };

// ids of devices are positive integers (docs/api.md#conventions) that fit an SQL integer, as the
// server parses them; the console may not import the server's code, so the rule is repeated here
const DEVICE_ID = /^[1-9]\d{0,9}$/;
const MAX_ID = 2147483647;
// module ids: 3 or more lowercase letters, digits, - and _, starting and ending with a letter or
// digit (docs/webhooks.md#smart-modules)
const MODULE_ID = /^[a-z0-9][a-z0-9_-]+[a-z0-9]$/;
// rollout ids are the service's strings; the console asks only for a plain token
const ROLLOUT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

const notFound = (path: string, why: string, back: SectionName = 'overview'): Route => ({ name: 'not-found', path, why, back });

const BROKEN = 'The address is not valid: it has a broken %-escape.';
/** a path segment's text, or undefined when its %-escapes are broken */
function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** the route a location hash names; anything that names nothing is `not-found` with the reason in words */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#\/?/, '').split('?')[0];
  const raw = path.split('/').filter(Boolean);
  if (raw.length === 0) return { name: 'overview' };
  const parts = raw.map(decode);
  const section = SECTIONS.find((s) => s === parts[0]);
  if (!section) return notFound(path, parts[0] === undefined ? BROKEN : `The console has no section “${parts[0]}”.`);
  if (parts.includes(undefined)) return notFound(path, BROKEN, section);
  const [, param, ...rest] = parts as string[];
  if (param === undefined) return { name: section };
  if (rest.length > 0) return notFound(path, `There is nothing at “${parts.join('/')}”.`, section);
  if (section === 'devices') {
    const id = DEVICE_ID.test(param) ? Number(param) : undefined;
    return id !== undefined && id <= MAX_ID
      ? { name: 'device', id }
      : notFound(path, `“${param}” is not a device id: device ids are positive whole numbers.`, section);
  }
  if (section === 'modules')
    return MODULE_ID.test(param)
      ? { name: 'module', id: param }
      : notFound(path, `“${param}” is not a module id: 3 or more lowercase letters, digits, - or _, starting and ending with a letter or digit.`, section);
  if (section === 'firmware') return ROLLOUT_ID.test(param) ? { name: 'rollout', id: param } : notFound(path, `“${param}” is not a rollout id.`, section);
  return notFound(path, `The ${section} section has no page for “${param}”.`, section);
}

/** one text per place: the shell remounts the page when it changes, so no state of one place is kept in another */
export function routeKey(r: Route): string {
  if (r.name === 'device') return `devices/${r.id}`;
  if (r.name === 'module') return `modules/${r.id}`;
  if (r.name === 'rollout') return `firmware/${r.id}`;
  if (r.name === 'not-found') return `not-found:${r.path}`;
  return r.name;
}

/** the section of the side menu a route belongs to */
export function sectionOf(r: Route): SectionName | undefined {
  if (r.name === 'device') return 'devices';
  if (r.name === 'module') return 'modules';
  if (r.name === 'rollout') return 'firmware';
  if (r.name === 'not-found') return undefined;
  return r.name;
}

export const currentRoute = (): Route => parseRoute(location.hash);

export function useRoute(): Route {
  const [route, setRoute] = useState(currentRoute());
  useEffect(() => {
    const on = () => setRoute(currentRoute());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

export const go = (path: string) => {
  location.hash = `#/${path.replace(/^\//, '')}`;
};
export const href = (path: string) => `#/${path.replace(/^\//, '')}`;
