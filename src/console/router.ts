// Hash routes (`#/devices/12`): the console is one page served at /console, so a reload or a
// shared link lands on the same view without the server knowing the console's paths.
import { useEffect, useState } from 'preact/hooks';

export function currentRoute(): string[] {
  return location.hash.replace(/^#\/?/, '').split('?')[0].split('/').filter(Boolean).map(decodeURIComponent);
}

export function useRoute(): string[] {
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
