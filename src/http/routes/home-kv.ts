// Mounted at /homes (see index.ts).
import { Hono } from 'hono';
import type { HttpEnv } from '../env.js';

export function home_kvRoutes(): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();
  return r;
}
