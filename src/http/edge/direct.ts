// A direct way in for the HTTP way in of device events, `PUT /devices/{id}/event` (issue #26).
// Hono's dispatch finds a request's path in its URL (a loop over the URL's characters), matches
// it against every route of its method (one regular expression over all of them, and the array
// of its captures) and calls the route's one handler with a Context. Here a request whose path
// is plainly that route's (its segments, no query, nothing percent-encoded) gets the same
// Context and the same handler, with the route's parameters taken from the path by a regular
// expression of that route alone; every other request, and any request should the route
// share its path with another, goes to Hono's dispatch. The edge, admission, the route's own
// handler and its errors are the functions every route runs: nothing of them is copied here.
import { Context, type Handler, type Hono, type NotFoundHandler } from 'hono';
import type { Router } from 'hono/router';

type Entry = [Handler<any>, unknown];
type Fetch = Hono['fetch'];

/**
 * `fetch` with a direct way to the route `method path` (a path of literal segments and
 * `:name` parameters), or `fetch` itself when the router does not answer the route's paths with
 * that route's handler alone. `notFound` and `onError` are the app's, as the dispatch uses them.
 */
export function directRoute(
  fetch: Fetch,
  router: Router<Entry>,
  route: { method: string; path: string },
  app: { notFound: NotFoundHandler<any>; onError: (err: Error, c: Context<any>) => Response | Promise<Response> },
): Fetch {
  const segments = route.path.split('/');
  const names: string[] = [];
  let pattern = '^';
  for (const s of segments.slice(1)) {
    if (s.startsWith(':') && /^:[A-Za-z0-9_]+$/.test(s)) {
      names.push(s.slice(1));
      // what Hono's getPath leaves as it is: no `%` (it decodes), `?` or `#` (it stops there)
      pattern += '/([^/?#%]+)';
    } else if (/^[A-Za-z0-9_.~-]+$/.test(s)) pattern += `/${s.replace(/\./g, '\\.')}`;
    else return fetch;
  }
  const shape = new RegExp(`${pattern}$`);
  // the router's answer for such a path: one handler (Hono's single-handler way), this route's
  const probe = router.match(route.method, segments.map((s) => (s.startsWith(':') ? '1' : s)).join('/'));
  const matched = probe[0];
  if (matched.length !== 1) return fetch;
  const [entry, params] = matched[0] as [Entry, Record<string, unknown>];
  if (Object.keys(params).sort().join() !== [...names].sort().join()) return fetch;
  const handler = entry[0];
  const { method } = route;
  const { notFound, onError } = app;
  // the dispatch's answer to an error: the app's onError for an Error, thrown again otherwise
  const failed = (err: unknown, c: Context<any>) => {
    if (err instanceof Error) return onError(err, c);
    throw err;
  };

  return (request, env, executionCtx) => {
    if (request.method !== method) return fetch(request, env, executionCtx);
    const url = request.url;
    // where Hono's getPath starts the path: the first `/` after the scheme's `://`
    const path = url.slice(url.indexOf('/', url.indexOf(':') + 4));
    const m = shape.exec(path);
    if (m === null) return fetch(request, env, executionCtx);
    // the parameters' values themselves (the TrieRouter's form: no capture array)
    const values: Record<string, string> = {};
    for (let i = 0; i < names.length; i++) values[names[i]] = m[i + 1];
    const c = new Context(request, { path, matchResult: [[[entry, values]]] as never, env, executionCtx, notFoundHandler: notFound });
    // as Hono's dispatch runs a route's one handler
    let res: Response | Promise<Response | void> | void;
    try {
      res = handler(c, async () => {
        c.res = await notFound(c);
      });
    } catch (err) {
      return failed(err, c);
    }
    return res instanceof Promise
      ? res.then((resolved) => resolved || (c.finalized ? c.res : notFound(c))).catch((err: unknown) => failed(err, c))
      : (res ?? notFound(c));
  };
}
