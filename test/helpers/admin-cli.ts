// The admin CLI as an operator runs it (`npm run admin -- ...`, i.e. `node --import tsx
// scripts/admin.ts`): a child process with exactly the settings given (the parent's HEARTH_* do
// not leak), its stdin piped from `stdin` (a password) or closed.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function cli(env: () => Record<string, string>, stdin?: string) {
  return (...args: string[]): Promise<CliRun> =>
    new Promise((res, rej) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], { cwd: ROOT, env: env(), stdio: ['pipe', 'pipe', 'pipe'] });
      child.stdin.end(stdin ?? '');
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', rej);
      child.on('exit', (code) => res({ code, stdout, stderr }));
    });
}

/** the environment without HEARTH_* settings, to add a test's own to */
export const withoutHearthSettings = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('HEARTH_'))) as Record<string, string>;
