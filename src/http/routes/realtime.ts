// Mounted at / (see index.ts).
import { Hono } from 'hono';
import type { HttpEnv } from '../env.js';

export function realtimeRoutes(): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();
  return r;
}
