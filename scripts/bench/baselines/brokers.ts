// The baselines the broker benches compare against, started in the same run: bare Aedes (in-memory
// persistence, no hooks, TCP) and Mosquitto when its binary is installed (a free port, anonymous
// local-only mode, its default settings). Plus the helpers to drive the load child.
import { fork, spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo, connect as netConnect } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Aedes } from 'aedes';
import { loadConfig } from '../../../src/config/load.js';
import type { Hearth } from '../../../src/main.js';
import { hashToken } from '../../../src/domain/auth/tokens.js';
import { newBenchDeviceKey, sealerOf } from './device-keys.js';

export interface RunningBroker {
  name: string;
  port: number;
  pid: number;
  close(): Promise<void>;
}

/**
 * bare Aedes 1.x with its defaults (aedes-persistence in memory, mqemitter), in this process; its
 * listener takes the accept queue Hearth's MQTT listener has by default (mqtt.backlog), so a storm
 * meets the same kernel queue on both (Mosquitto's is its own: 100, `ss -ltn`, not a setting of its configuration file)
 */
export async function startBareAedes(): Promise<RunningBroker & { aedes: Aedes }> {
  const aedes = await Aedes.createBroker();
  const server = createServer(aedes.handle);
  const backlog = loadConfig({}).mqtt.backlog;
  await new Promise<void>((r) => server.listen({ port: 0, host: '127.0.0.1', backlog }, () => r()));
  return {
    name: 'bare aedes',
    aedes,
    port: (server.address() as AddressInfo).port,
    pid: process.pid,
    close: () =>
      new Promise<void>((r) => {
        server.close();
        aedes.close(() => r());
      }),
  };
}

export function haveMosquitto(): boolean {
  try {
    execFileSync('which', ['mosquitto'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export function accepting(port: number): Promise<boolean> {
  return new Promise((r) => {
    const s = netConnect(port, '127.0.0.1', () => {
      s.destroy();
      r(true);
    });
    s.on('error', () => r(false));
  });
}

/**
 * Mosquitto on a free loopback port, anonymous, its defaults except one: its queue of QoS 1
 * messages per client (1000 by default) is lifted, because past it Mosquitto drops messages and
 * Aedes and Hearth drop none; the comparison is of work done, not of work skipped.
 */
export async function startMosquitto(): Promise<RunningBroker | undefined> {
  if (!haveMosquitto()) return undefined;
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'bench-mosquitto-'));
  const conf = join(dir, 'mosquitto.conf');
  writeFileSync(conf, `listener ${port} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 0\npersistence false\n`);
  const child = spawn('mosquitto', ['-c', conf], { stdio: 'ignore' });
  child.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  for (let i = 0; i < 100 && !(await accepting(port)); i++) await new Promise((r) => setTimeout(r, 50));
  if (!(await accepting(port))) {
    child.kill('SIGKILL');
    return undefined;
  }
  return {
    name: 'mosquitto',
    port,
    pid: child.pid!,
    close: () =>
      new Promise<void>((r) => {
        child.once('exit', () => r());
        child.kill('SIGTERM');
      }),
  };
}

/** CPU time (user + system) a process has used so far, µs (this process: process.cpuUsage) */
export function cpuMicrosOf(pid: number): number {
  if (pid === process.pid) {
    const u = process.cpuUsage();
    return u.user + u.system;
  }
  // /proc/<pid>/stat fields 14 and 15, in clock ticks (100 per second on Linux)
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/**
 * CPU time (user, system) of a process so far, µs, per kind of thread (the thread's name in
 * /proc/<pid>/task/<tid>/comm). Threads that ended are
 * not counted: compare two readings of threads that live through the window. Node 20 names every
 * thread `node`: the event loop is the one whose id is the process's, the rest are `node (other)`
 * (V8's helpers, the libuv pool, worker threads). BENCH_TID=1: one entry per thread, named by its
 * id's offset from the process's (`#0` the event loop; V8's four helpers come next, `#2`..`#5`).
 */
export function cpuByThreadOf(pid: number): Map<string, { user: number; system: number }> {
  const out = new Map<string, { user: number; system: number }>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const f = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
        .replace(/^.*\) /, '')
        .split(' ');
      const kind = process.env.BENCH_TID ? `#${Number(tid) - pid}` : name === 'node' && tid !== String(pid) ? 'node (other)' : name;
      const t = out.get(kind) ?? { user: 0, system: 0 };
      t.user += Number(f[11]) * 10_000;
      t.system += Number(f[12]) * 10_000;
      out.set(kind, t);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/** what each kind of thread used between two readings of cpuByThreadOf, per connect (µs), as `kind user+system` */
export function threadCpuLine(a: Map<string, { user: number; system: number }>, b: Map<string, { user: number; system: number }>, per: number): string {
  const parts: string[] = [];
  for (const [kind, t] of b) {
    const t0 = a.get(kind) ?? { user: 0, system: 0 };
    const u = (t.user - t0.user) / per;
    const s = (t.system - t0.system) / per;
    if (u + s >= 1) parts.push(`${kind} ${u.toFixed(0)}+${s.toFixed(0)}`);
  }
  return parts.join(', ');
}

/** devices created straight through the store (the bench is not about the registry API) */
export async function seedDevices(
  hearth: Hearth,
  n: number,
  o: { homeId?: number | null; keyOf?: (i: number) => string } = {},
): Promise<{ id: number; key: string }[]> {
  const out: { id: number; key: string }[] = [];
  const now = new Date().toISOString();
  const seal = await sealerOf(hearth);
  await hearth.deps.store.transaction(async (store) => {
    for (let i = 0; i < n; i++) {
      const key = o.keyOf ? o.keyOf(i) : newBenchDeviceKey();
      const d = await store.devices.create({
        projectId: 1,
        deviceClass: 'default',
        homeId: o.homeId ?? null,
        name: `bench ${i}`,
        description: null,
        tag: null,
        apiKeyHash: hashToken(key),
        apiKeySealed: seal(key),
        claimCodeHash: null,
        claimCodeSealed: null,
        claimExpirationTime: null,
        claimTime: null,
        creationTime: now,
        bundleInstalled: null,
        bundleInstallTime: null,
        channel: null,
      });
      out.push({ id: d.id, key });
    }
  });
  return out;
}

/**
 * resident memory of a process, in bytes (Linux /proc): as its page tables have it
 * (smaps_rollup), else VmRSS, the kernel's per-CPU counter, which can be some MB off
 */
export function rssOf(pid: number): number {
  try {
    const m = /^Rss:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch {
    // no smaps_rollup (Linux before 4.14): VmRSS
  }
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

// ---- child processes, driven over IPC ----

export interface Child {
  proc: ChildProcess;
  /** sends a message and resolves with the first reply of that type (or rejects on an error reply) */
  request<T = any>(msg: object, replyType: string, timeoutMs?: number): Promise<T>;
  wait<T = any>(replyType: string, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

/** forks a TypeScript file of this directory with tsx, waits for its `up` message */
export async function forkChild(file: string, args: string[] = [], execArgv: string[] = []): Promise<Child> {
  const path = fileURLToPath(new URL(file, import.meta.url));
  const proc = fork(path, args, { execArgv: ['--import', 'tsx', ...execArgv], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const wait = <T>(replyType: string, timeoutMs = 120_000) =>
    new Promise<T>((resolve, reject) => {
      const t = setTimeout(() => {
        proc.off('message', on);
        reject(new Error(`${file}: no ${replyType} within ${timeoutMs} ms`));
      }, timeoutMs);
      const on = (m: any) => {
        if (m?.type === 'error') {
          clearTimeout(t);
          proc.off('message', on);
          reject(new Error(`${file}: ${m.message}`));
        } else if (m?.type === replyType) {
          clearTimeout(t);
          proc.off('message', on);
          resolve(m as T);
        }
      };
      proc.on('message', on);
    });
  // a busy machine can take long to load a TypeScript child through tsx
  await wait('up', 180_000);
  return {
    proc,
    wait,
    request(msg, replyType, timeoutMs) {
      const p = wait(replyType, timeoutMs);
      proc.send(msg);
      return p as Promise<any>;
    },
    close: () =>
      new Promise<void>((r) => {
        if (proc.exitCode !== null) return r();
        const t = setTimeout(() => proc.kill('SIGKILL'), 5000);
        proc.once('exit', () => {
          clearTimeout(t);
          r();
        });
        proc.send({ type: 'close' });
      }),
  };
}
