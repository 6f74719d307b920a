// Mounted at /users (see index.ts).
import { Hono } from 'hono';
import type { HttpEnv } from '../env.js';

export function usersRoutes(): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();
  return r;
}
