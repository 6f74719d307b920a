// Real Hearth processes for end-to-end tests: `node --import tsx src/main.ts` as a child with its own ports,
// data directory and environment; waits for /healthz; kills what it started.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort } from './redis-server.js';

const ROOT = resolve(import.meta.dirname, '../..');
const DIE_WITH_PARENT = pathToFileURL(join(import.meta.dirname, 'die-with-parent.mjs')).href;

export interface HearthProcess {
  name: string;
  httpPort: number;
  mqttPort: number;
  dataDir: string;
  url: string;
  child: ChildProcess;
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** start again on the same ports and data directory */
  restart(): Promise<void>;
}

export interface HearthProcessOptions {
  name?: string;
  env?: Record<string, string>;
  dataDir?: string;
  timeoutMs?: number;
  /** node's arguments; default: the sources through tsx (`--import tsx src/main.ts`) */
  argv?: string[];
  /** default: the project's root */
  cwd?: string;
  /** when the process counts as started; default: GET /healthz answers 200 (a worker-only node has no HTTP port) */
  ready?: (p: { httpPort: number; child: ChildProcess }) => Promise<boolean>;
}

export async function startHearthProcess(opts: HearthProcessOptions = {}): Promise<HearthProcess> {
  let httpPort = await freePort();
  let mqttPort = await freePort();
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'hearth-proc-'));
  let out = '';
  let child!: ChildProcess;
  const launch = async () => {
    // node --import tsx, not the tsx CLI: a SIGKILL of the CLI would leave the server running
    child = spawn(process.execPath, ['--import', DIE_WITH_PARENT, ...(opts.argv ?? ['--import', 'tsx', 'src/main.ts'])], {
      cwd: opts.cwd ?? ROOT,
      env: {
        ...process.env,
        HEARTH_HOST: '127.0.0.1',
        HEARTH_HTTP_PORT: String(httpPort),
        HEARTH_MQTT_PORT: String(mqttPort),
        HEARTH_DATA_DIR: dataDir,
        HEARTH_LOG_LEVEL: 'warn',
        // die-with-parent.mjs: this process
        HEARTH_TEST_PARENT_PID: String(process.pid),
        ...opts.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const end = Date.now() + (opts.timeoutMs ?? 30_000);
    for (;;) {
      if (child.exitCode !== null) throw new Error(`hearth ${opts.name ?? ''} exited with ${child.exitCode}: ${out}`);
      try {
        if (opts.ready ? await opts.ready({ httpPort, child }) : (await fetch(`http://127.0.0.1:${httpPort}/healthz`)).ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > end) {
        // nobody gets a handle on a process that did not start: it must not outlive the test
        child.kill('SIGKILL');
        throw new Error(`hearth ${opts.name ?? ''} did not start: ${out}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const kill = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(t);
  };
  try {
    // a free port can be taken by another test file between freePort() and the child's bind:
    // the child then stops at once naming the port; start again on fresh ones
    for (let attempt = 1; ; attempt++) {
      try {
        await launch();
        break;
      } catch (e) {
        if (attempt >= 3 || !/already in use/.test((e as Error).message)) throw e;
        httpPort = await freePort();
        mqttPort = await freePort();
      }
    }
  } catch (e) {
    if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
  return {
    name: opts.name ?? 'hearth',
    httpPort,
    mqttPort,
    dataDir,
    url: `http://127.0.0.1:${httpPort}`,
    get child() {
      return child;
    },
    output: () => out,
    kill,
    restart: launch,
  };
}

export function removeDataDir(p: HearthProcess): void {
  rmSync(p.dataDir, { recursive: true, force: true });
}

/**
 * A start that is expected to stop by itself (a bad setting, a taken port): runs the process as
 * startHearthProcess would, without HEARTH_* variables of the parent, and waits for its exit.
 */
export async function runHearthToExit(env: Record<string, string>, timeoutMs = 100_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('HEARTH_')));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { ...base, HEARTH_HOST: '127.0.0.1', HEARTH_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  // 'close': the exit, and all it wrote read
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr };
}
