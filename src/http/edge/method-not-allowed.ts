// docs/api.md#conventions: a known path asked with a method it does not have is 405 METHOD_NOT_ALLOWED, with
// the methods it has. Worked out in the not-found handler, so only requests that matched no route
// pay for it (hono's methodNotAllowed middleware is one more layer around every request). Same
// rule as that middleware: every method of every route whose pattern matches the path, HEAD
// wherever GET is.
import type { Hono } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';

/** the methods `path` has, or undefined when no route knows the path at all */
export function allowedMethods(app: Hono<any>): (path: string) => string[] | undefined {
  let router: TrieRouter<string[]> | undefined;
  return (path) => {
    if (!router) {
      const byPath = new Map<string, Set<string>>();
      for (const route of app.routes) {
        if (route.method === 'ALL' || route.method === 'HEAD') continue;
        const methods = byPath.get(route.path) ?? new Set<string>();
        methods.add(route.method);
        if (route.method === 'GET') methods.add('HEAD');
        byPath.set(route.path, methods);
      }
      router = new TrieRouter<string[]>();
      for (const [p, methods] of byPath) router.add('ALL', p, [...methods]);
    }
    const allowed = new Set<string>();
    for (const [methods] of router.match('ALL', path)[0]) for (const m of methods) allowed.add(m);
    return allowed.size ? [...allowed] : undefined;
  };
}
