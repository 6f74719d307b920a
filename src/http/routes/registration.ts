// Mounted at /deviceRegistration (see index.ts).
import { Hono } from 'hono';
import type { HttpEnv } from '../env.js';

export function registrationRoutes(): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();
  return r;
}
