// An answer given before the request body was read to its end (a firmware upload past its limit,
// docs/firmware.md#files), that the client must still be able to read. Closing the connection
// at once would leave the rest of the body unread in the kernel: the close then sends a TCP RST,
// which can reach the client before it has read the answer (it sees "socket hang up" or
// ECONNRESET instead). So the answer says `Connection: close`, and once it is written the
// connection closes the way HTTP servers' lingering close does: our side is ended (FIN after the
// answer), what the client still sends is read and dropped, and the socket is destroyed when the
// client ends its side, or after LINGER_MS, or past LINGER_BYTES, whichever comes first.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Context } from 'hono';

const LINGER_MS = 2_000;
const LINGER_BYTES = 16 * 1024 * 1024;

/** the answer about to be given (an error's too) says `Connection: close`; the connection closes gently after it */
export function closeAfterAnswer(c: Context): void {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const socket = incoming?.socket as (Socket & { destroySoon?: () => void }) | undefined;
  c.header('connection', 'close');
  if (!incoming || !socket || typeof socket.destroySoon !== 'function') return;
  // Node's server calls destroySoon once a `Connection: close` answer is written: it would destroy
  // the socket with the body still coming; here it lingers first
  let lingering = false;
  socket.destroySoon = () => {
    if (lingering) return;
    lingering = true;
    let bytes = 0;
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
    };
    const timer = setTimeout(done, LINGER_MS);
    timer.unref();
    incoming.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > LINGER_BYTES) done();
    });
    incoming.on('end', done);
    incoming.on('error', done);
    socket.once('end', done);
    socket.once('close', () => clearTimeout(timer));
    incoming.resume();
    socket.end();
  };
}
