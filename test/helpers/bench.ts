// Runs `npm run bench -- <name>` as the bench smoke tests do: node with tsx, from the repository,
// with none of the caller's BENCH_* settings but the ones given; stdout and stderr together.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

export function runBench(name: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((res) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench/index.ts', name], {
      cwd: ROOT,
      env: { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BENCH_'))), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => res({ code, out }));
  });
}
