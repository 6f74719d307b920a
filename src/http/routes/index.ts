// Every resource sub-app and where it is mounted. Order does not matter: paths do not overlap.
import type { Hono } from 'hono';
import type { HttpEnv } from '../env.js';

export const ROUTES: [string, () => Hono<HttpEnv>][] = [];
