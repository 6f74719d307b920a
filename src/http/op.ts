// Per-route metadata, attached as the first middleware of each route: it names the operation,
// fixes which statuses it may answer, resolves the caller, applies the rate limit, and is what
// /openapi.json is generated from (one definition: validation, types and docs). resource()
// builds the sub-app of a resource, with what its operations share said once.
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { callerOfCredential, resolveCaller, tokenFromHeader } from '../domain/auth/resolve.js';
import { hashToken } from '../domain/auth/tokens.js';
import { callerKey, type Caller } from '../domain/caller.js';
import { AppError } from '../domain/errors.js';
import type { Maybe } from '../domain/maybe.js';
import type { ApiDeps, HttpEnv } from './env.js';
import type { OpMeta } from './op-meta.js';
import type { RateDecision } from '../ports/rate-limiter.js';
import { SPEC_STATUSES, type SpecOperation } from '../protocol/spec-statuses.js';
import { clientIp } from './client-ip.js';
import { requestHeader } from './headers.js';

/**
 * The operation's metadata, and its admission: what runs before the handler (name the operation,
 * resolve the caller, spend the rate limit). createApi calls `admit` itself, folded with the
 * handler into the one function the router holds for the route (edge/index.ts); as a middleware it does
 * the same and calls next(). Admission returns no promise (undefined) when it was decided at once
 * (the credential's rows in the read cache, the rate limit in memory), and throws its refusal
 * then; else it returns the promise of the rest.
 */
export type Admit = (c: Context<HttpEnv>) => Promise<void> | undefined;
export type OpMiddleware = MiddlewareHandler<HttpEnv> & { meta: OpMeta; admit: Admit };

/** an Authorization header, and the kind and hash of its token (undefined: none in it) */
type Credential = { header: string; kind: string; hash: string } | { header: string; kind: undefined; hash: undefined };
const credentialOfConnection = Symbol('credential of the connection');
type Connection = { [credentialOfConnection]?: Credential };

/**
 * The kind and hash of the Authorization header's token. A connection sends the same header with
 * each of its requests: the last one's are kept on the connection (its socket), and reused while
 * the header is the same text, instead of matching and hashing it again (a tenth of the admission
 * of a `GET /devices/{id}`, `npm run bench -- api`). Only the header's own reading is kept: the
 * credential is still looked up for every request, so a revoked key stops working as before.
 */
function credentialOf(c: Context<HttpEnv>): Credential | undefined {
  const header = requestHeader(c, 'authorization');
  if (header === undefined) return undefined;
  const socket = (c.env as { incoming?: { socket?: Connection | null } } | undefined)?.incoming?.socket;
  const known = socket?.[credentialOfConnection];
  if (known !== undefined && known.header === header) return known;
  const token = tokenFromHeader(header);
  const credential: Credential = token ? { header, kind: token.slice(0, 3), hash: hashToken(token) } : { header, kind: undefined, hash: undefined };
  if (socket) socket[credentialOfConnection] = credential;
  return credential;
}

/** RATE_LIMITED when the bucket had no point left */
function check(d: RateDecision): void {
  if (!d.allowed) throw new AppError('RATE_LIMITED', { retryAfter: Math.max(1, Math.ceil(d.retryAfterMs / 1000)) });
}

/** a point of the key's bucket: decided at once by an in-memory limiter, else a promise */
function spend(deps: ApiDeps, key: string): Promise<void> | undefined {
  if (deps.rateLimiter.consumeNow) {
    check(deps.rateLimiter.consumeNow(key));
    return undefined;
  }
  return deps.rateLimiter.consume(key).then(check);
}

/**
 * A refused credential: an unknown token spends the client IP's bucket (guessing is limited like
 * anonymity), so an exhausted bucket answers RATE_LIMITED instead
 */
function refuse(deps: ApiDeps, err: unknown, ip: string, limited: boolean): Promise<void> {
  const spent = limited ? spend(deps, `ip:${ip}`) : undefined;
  if (spent) return spent.then(() => Promise.reject(err));
  throw err;
}

/**
 * what a route gives op(): its metadata; a documented operation (`spec`) has the statuses of the
 * docs, and its name for operationId unless it says another
 */
export type OpInput = Omit<OpMeta, 'statuses' | 'operationId'> & { operationId?: string; spec?: SpecOperation; statuses?: readonly number[] };

export function op(meta: OpInput): OpMiddleware {
  const operationId = meta.operationId ?? meta.spec;
  if (operationId === undefined) throw new Error(`op() of "${meta.summary}" needs an operationId or a spec`);
  const full: OpMeta = { ...meta, operationId, statuses: meta.spec ? SPEC_STATUSES[meta.spec] : meta.statuses };
  // read once here: the metadata objects of the routes differ in shape, and reading their fields
  // in the one middleware function they share made every such read megamorphic (slow)
  const rateLimited = !full.statuses || full.statuses.includes(429);
  const authenticated = full.authenticated !== false;
  const queryToken = full.queryToken === true;
  const admit: Admit = (c) => {
    c.set('op', full);
    const deps = c.get('deps');
    // operations whose documented list has no 429 are exempt (docs/api.md#errors)
    const limited = rateLimited && deps.rateLimitEnabled;
    if (!authenticated && !limited) return undefined;
    const ip = clientIp(c);
    if (authenticated) {
      const credential = credentialOf(c);
      let caller: Maybe<Caller>;
      try {
        if (credential?.hash !== undefined) caller = callerOfCredential({ deps, input: { kind: credential.kind, hash: credential.hash, ip } });
        else caller = resolveCaller({ deps, input: { token: queryToken ? c.req.query('authToken') || undefined : undefined, ip } });
      } catch (err) {
        return refuse(deps, err, ip, limited);
      }
      // not in the read cache: the store is asked
      if (caller instanceof Promise) {
        return caller.then(
          (found) => {
            c.set('caller', found);
            return limited ? spend(deps, callerKey(found) ?? `ip:${ip}`) : undefined;
          },
          (err: unknown) => refuse(deps, err, ip, limited),
        );
      }
      c.set('caller', caller);
    }
    return limited ? spend(deps, callerKey(c.get('caller')) ?? `ip:${ip}`) : undefined;
  };
  const mw: MiddlewareHandler<HttpEnv> = async (c, next) => {
    await admit(c);
    await next();
  };
  return Object.assign(mw, { meta: full, admit });
}

/**
 * op() for the operations of one resource: what they share (their tag, and where every one
 * agrees, their statuses or who may call) is said once; an operation may still say otherwise.
 * Merged when the route is defined, never per request.
 */
export function opsOf<S extends SharedOp>(shared: S): OpOf<S> {
  return (meta) => op({ ...shared, ...meta } as OpInput);
}

/** what the operations of one resource may share */
export type SharedOp = Partial<OpInput> & { tag: string };
/** op() of a resource's operations: what they share may be left out, or said otherwise */
export type OpOf<S extends SharedOp> = (meta: Omit<OpInput, keyof S> & Partial<OpInput>) => OpMiddleware;

/**
 * One sub-app per resource (docs/architecture.md#house-rules): its routes, each with its op() and
 * its handler inline after the path, and what the resource's operations share said once.
 * routes/index.ts mounts what this builds; `define` builds it afresh for each app.
 */
export function resource<S extends SharedOp>(shared: S, define: (r: Hono<HttpEnv>, op: OpOf<S>) => void): () => Hono<HttpEnv> {
  const op = opsOf(shared);
  return () => {
    const r = new Hono<HttpEnv>();
    define(r, op);
    return r;
  };
}
