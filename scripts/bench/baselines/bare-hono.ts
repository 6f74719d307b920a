// The start-up bench's floor: the smallest Hono server on @hono/node-server that answers
// /healthz, compiled to JavaScript and started with node exactly as the built Hearth is.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono();
app.get('/healthz', (c) => c.json({ status: 'ok' }));
const server = serve({ fetch: app.fetch, port: Number(process.env.HEARTH_HTTP_PORT), hostname: '127.0.0.1' });
process.on('SIGTERM', () => server.close(() => process.exit(0)));
