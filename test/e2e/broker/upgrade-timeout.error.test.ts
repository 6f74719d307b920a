// docs/api.md#limits: a connection that never finishes its request head (a half-sent WebSocket upgrade)
// is closed after the connect timeout, not held for Node's default 60 s.
import { connect } from 'node:net';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';

describe('half-sent upgrade requests', () => {
  let h: TestHearth;
  beforeAll(async () => {
    h = await startTestHearth({ limits: { connectTimeoutMs: 1000 } });
  });
  afterAll(() => h?.close());

  it('closes a connection whose upgrade head never ends within the connect timeout', async () => {
    const socket = connect(h.httpPort, '127.0.0.1');
    await once(socket, 'connect');
    const started = Date.now();
    socket.write('GET /devices/1/command HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n');
    socket.resume();
    await once(socket, 'close');
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(20_000);
  }, 30_000);
});
