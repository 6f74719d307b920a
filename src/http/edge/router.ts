// The app's router: Hono's RegExpRouter, one regular expression per method. It refuses a literal
// segment beside a parameter at the same place under one method (POST
// /projects/:projectId/smartModules/templatePreview beside POST .../smartModules/:moduleId/keys),
// and Hono's default SmartRouter then falls back, silently, to TrieRouter for every request
// (dearer per match: `npm run bench -- api`). Here such a literal is folded into the parameter:
// the route is registered under the parameter's name, and one handler at that path chooses by the
// segment's value; a value no route there has falls through to not-found (then 405, as before:
// the 405 list comes from app.routes, which keep their own paths, as /openapi.json does). A
// route set RegExpRouter still refuses throws when the app is built, never at a request.
//
// And one RegExpRouter per first segment of the path (`/devices`, `/homes`...), each with the
// routes a path starting so can match: those whose first segment is that literal, and those whose
// first segment is not a literal (every router has these). A RegExpRouter's match of a
// parametrised path runs one regular expression of all its routes of the method and fills a
// capture array with a group for every route and parameter in it: a match of `GET /devices/{id}`
// took 0.56 µs of CPU against the API's whole GET set and 0.33 against its /devices routes
// (medians of 8 rounds of 500,000, old and new alternating in one process, 2026-11-28; every
// round 0.53-0.76 against 0.31-0.38), about 0.6% of the request (`npm run bench -- api`); a PUT's
// set was small already (0.36 either way). The routes a path can match are the same either way,
// in the same order.
import type { Handler } from 'hono';
import type { Result, Router } from 'hono/router';
import { RegExpRouter } from 'hono/router/reg-exp-router';

type Entry<R> = [Handler<any>, R];

interface Route<R> {
  method: string;
  path: string;
  entry: Entry<R>;
  /** the parameters this route's literals became, and the value each must have */
  literals: [name: string, value: string][];
}

/** a plain `:name` segment (no pattern, not optional): what a literal beside it may fold into */
const PLAIN_PARAM = /^:[A-Za-z0-9_]+$/;
/** a first segment that only a path with that very segment matches (no parameter, wildcard or pattern) */
const LITERAL = /^[A-Za-z0-9._~-]+$/;

/** a path's first segment, as the routers are split by ('' for `/`) */
function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return end === -1 ? path.slice(1) : path.slice(1, end);
}

export class FoldingRouter<R> implements Router<Entry<R>> {
  name = 'RegExpRouter';
  #routes: Route<R>[] = [];
  #built: Router<Entry<R>> | undefined;
  /** the router of each literal first segment a route has */
  #bySegment = new Map<string, Router<Entry<R>>>();

  add(method: string, path: string, entry: Entry<R>): void {
    if (this.#built) throw new Error('routes are added before the first match');
    this.#routes.push({ method, path, entry, literals: [] });
  }

  match(method: string, path: string): Result<Entry<R>> {
    const rest = (this.#built ??= this.build());
    return (this.#bySegment.get(firstSegment(path)) ?? rest).match(method, path);
  }

  /**
   * the RegExpRouters of the routes, literals folded (throws UnsupportedPathError if one still
   * refuses a route): one per literal first segment, and the one returned, for any other path
   */
  build(): Router<Entry<R>> {
    if (this.#built) return this.#built;
    /** the plain parameter another route of `method` has at segment i after the same prefix */
    const paramBeside = (method: string, segments: string[], i: number): string | undefined => {
      for (const other of this.#routes) {
        if (other.method !== method && other.method !== 'ALL' && method !== 'ALL') continue;
        const o = other.path.split('/');
        if (o.length <= i || !PLAIN_PARAM.test(o[i])) continue;
        if (segments.slice(0, i).every((s, j) => s === o[j] || (s.startsWith(':') && o[j].startsWith(':')))) return o[i];
      }
      return undefined;
    };
    const routes = this.#routes.map(fold);
    const groups = new Map<string, Route<R>[]>();
    for (const r of routes) {
      const key = `${r.method} ${r.path}`;
      const group = groups.get(key);
      if (group) group.push(r);
      else groups.set(key, [r]);
    }
    const added: { method: string; path: string; entry: Entry<R> }[] = [];
    for (const group of groups.values()) {
      if (group.every((r) => r.literals.length === 0)) {
        for (const r of group) added.push(r);
        continue;
      }
      // one handler at the folded path: the first route (in the order they were added) whose
      // literals the request has
      const handler: Handler<any> = (c, next) => {
        for (const r of group) if (r.literals.every(([name, value]) => c.req.param(name) === value)) return r.entry[0](c, next);
        return next();
      };
      added.push({ method: group[0].method, path: group[0].path, entry: [handler, group[0].entry[1]] });
    }
    // a router per literal first segment, with the routes of any first segment among them, in order
    const literalOf = (path: string): string | undefined => {
      const segment = firstSegment(path);
      return LITERAL.test(segment) ? segment : undefined;
    };
    const segments = new Set(added.map((r) => literalOf(r.path)).filter((s) => s !== undefined));
    const routerOf = (segment: string | undefined): Router<Entry<R>> => {
      const router = new RegExpRouter<Entry<R>>();
      for (const r of added) {
        const literal = literalOf(r.path);
        if (literal === undefined || literal === segment) router.add(r.method, r.path, r.entry);
      }
      // RegExpRouter builds its matchers on its first match: any refusal surfaces now
      router.match('GET', '/');
      return router;
    };
    for (const segment of segments) this.#bySegment.set(segment, routerOf(segment));
    const router = routerOf(undefined);
    function fold(route: Route<R>): Route<R> {
      const segments = route.path.split('/');
      const literals: [string, string][] = [];
      for (let i = 0; i < segments.length; i++) {
        const s = segments[i];
        if (s.startsWith(':') || s === '*' || s === '') continue;
        const param = paramBeside(route.method, segments, i);
        if (param === undefined) continue;
        literals.push([param.slice(1), s]);
        segments[i] = param;
      }
      return literals.length ? { ...route, path: segments.join('/'), literals } : route;
    }
    this.#built = router;
    return router;
  }
}
