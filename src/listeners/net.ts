// Binding a port with the one-line error that names its variable, and giving an upgrade request
// nobody took back to the HTTP server as a plain request.
import { ServerResponse, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { AddressInfo, Server as NetServer, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ConfigError } from '../config/load.js';

/** `backlog`: the accept queue's length (Node's default 511 when not given; Linux caps it at net.core.somaxconn) */
export function listen(server: NetServer, port: number, host: string, variable: string, backlog?: number): Promise<number> {
  return new Promise((res, rej) => {
    const onError = (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') rej(new ConfigError(`${variable}: port ${port} on ${host} is already in use; set ${variable} to a free port`));
      else if (err.code === 'EACCES') rej(new ConfigError(`${variable}: no permission to listen on port ${port}; set ${variable} to a port above 1023`));
      else if (err.code === 'EADDRNOTAVAIL') rej(new ConfigError(`HEARTH_HOST: ${host} is not an address of this machine (binding ${variable}=${port})`));
      else rej(err);
    };
    server.once('error', onError);
    server.listen({ port, host, ...(backlog ? { backlog } : {}) }, () => {
      server.off('error', onError);
      res((server.address() as AddressInfo).port);
    });
  });
}

/**
 * An upgrade the broker does not take (another path, or `Upgrade: h2c`) is an ordinary HTTP
 * request: Node hands every upgrade to the 'upgrade' listener once there is one, so give it back
 * to the API as a plain request on the same socket.
 */
export function serveAsRequest(server: HttpServer, req: IncomingMessage, socket: Duplex): void {
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket as Socket);
  res.on('finish', () => {
    res.detachSocket(socket as Socket);
    socket.end();
  });
  server.emit('request', req, res);
}
