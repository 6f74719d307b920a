// The two baselines every HTTP bench compares against: the cheapest Hono app and the cheapest
// node:http server that answer the same bytes on the same path shape.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { createAdaptorServer } from '@hono/node-server';

export interface Running {
  url: string;
  close(): Promise<void>;
}

function listening(server: Server, path: string): Promise<Running> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}${path}`,
        close: () =>
          new Promise<void>((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      });
    });
  });
}

/** a bare Hono app with one JSON route, served by @hono/node-server */
export function bareHono(path: string, json: unknown): Promise<Running> {
  const app = new Hono();
  app.get(path.replace(/\/\d+(?=\/|$)/g, '/:id'), (c) => c.json(json as object));
  return listening(createAdaptorServer({ fetch: app.fetch }) as Server, path);
}

/** a bare node:http server answering the same JSON */
export function bareNode(path: string, json: unknown): Promise<Running> {
  const body = JSON.stringify(json);
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  return listening(server, path);
}
