// Mounted at /projects (see index.ts).
import { Hono } from 'hono';
import type { HttpEnv } from '../env.js';

export function projectsRoutes(): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();
  return r;
}
