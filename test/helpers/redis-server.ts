// A Redis server of the test's own on a free port, for restart tests (the machine's Redis is
// shared and must never be stopped).
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { once } from 'node:events';

export async function freePort(): Promise<number> {
  const s = createServer();
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  const port = (s.address() as { port: number }).port;
  s.close();
  await once(s, 'close');
  return port;
}

export interface OwnRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    const end = Date.now() + 10_000;
    while (!out.includes('Ready to accept connections')) {
      if (Date.now() > end || child.exitCode !== null) throw new Error(`redis-server did not start: ${out}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const stop = async () => {
    if (!child || child.exitCode !== null) return;
    const c = child;
    c.kill('SIGKILL');
    await once(c, 'exit');
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, start, stop };
}
