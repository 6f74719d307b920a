// The app's router: Hono's RegExpRouter, one regular expression per method. It refuses a literal
// segment beside a parameter at the same place under one method (POST
// /projects/:projectId/smartModules/templatePreview beside POST .../smartModules/:moduleId/keys),
// and Hono's default SmartRouter then falls back, silently, to TrieRouter for every request
// (dearer per match: `npm run bench -- api`). Here such a literal is folded into the parameter:
// the route is registered under the parameter's name, and one handler at that path chooses by the
// segment's value; a value no route there has falls through to not-found (then 405, as before:
// the 405 list comes from app.routes, which keep their own paths, as /openapi.json does). A
// route set RegExpRouter still refuses throws when the app is built, never at a request.
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

export class FoldingRouter<R> implements Router<Entry<R>> {
  name = 'RegExpRouter';
  #routes: Route<R>[] = [];
  #built: Router<Entry<R>> | undefined;

  add(method: string, path: string, entry: Entry<R>): void {
    if (this.#built) throw new Error('routes are added before the first match');
    this.#routes.push({ method, path, entry, literals: [] });
  }

  match(method: string, path: string): Result<Entry<R>> {
    return (this.#built ??= this.build()).match(method, path);
  }

  /** the RegExpRouter of every route, literals folded (throws UnsupportedPathError if it still refuses one) */
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
    const router = new RegExpRouter<Entry<R>>();
    for (const group of groups.values()) {
      if (group.every((r) => r.literals.length === 0)) {
        for (const r of group) router.add(r.method, r.path, r.entry);
        continue;
      }
      // one handler at the folded path: the first route (in the order they were added) whose
      // literals the request has
      const handler: Handler<any> = (c, next) => {
        for (const r of group) if (r.literals.every(([name, value]) => c.req.param(name) === value)) return r.entry[0](c, next);
        return next();
      };
      router.add(group[0].method, group[0].path, [handler, group[0].entry[1]]);
    }
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
    // RegExpRouter builds its matchers on its first match: any refusal surfaces now
    router.match('GET', '/');
    return router;
  }
}
