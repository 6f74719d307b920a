// Mounted at /events (see index.ts).
import { Hono } from 'hono';
import type { HttpEnv } from '../env.js';

export function eventsRoutes(): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();
  return r;
}
