// Mounted at /bundles (see index.ts).
import { Hono } from 'hono';
import type { HttpEnv } from '../env.js';

export function bundlesRoutes(): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();
  return r;
}
