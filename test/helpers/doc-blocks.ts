// The shell blocks of a Markdown page, for the tests that run a page verbatim (README.md,
// docs/firmware.md): each ```sh / ```bash / ```shell block in order, with the line it starts on,
// whether it lies between `<!-- <marker>:start -->` and `<!-- <marker>:end -->`, and the reason it
// is not run when the paragraph just above it says `*Not run by the README test: <why>.*`.

import { spawn } from 'node:child_process';
import { once } from 'node:events';

export interface DocBlock {
  line: number;
  text: string;
  /** between the page's markers */
  marked: boolean;
  notRun?: string;
}

const NOT_RUN = /^\*Not run by the README test: ([\s\S]+?)\*\s*$/;

export function docBlocks(page: string, marker = 'quickstart'): DocBlock[] {
  const start = page.indexOf(`<!-- ${marker}:start -->`);
  const end = page.indexOf(`<!-- ${marker}:end -->`);
  return [...page.matchAll(/^```(sh|bash|shell)\n([\s\S]*?)^```$/gm)].map((m) => {
    const before = page.slice(0, m.index).trimEnd();
    // the paragraph just above the block
    const above = before.slice(before.lastIndexOf('\n\n') + 2);
    const note = NOT_RUN.exec(above);
    return {
      line: page.slice(0, m.index).split('\n').length,
      text: m[2],
      marked: start >= 0 && m.index > start && m.index < end,
      ...(note ? { notRun: note[1].replace(/\s+/g, ' ') } : {}),
    };
  });
}

/**
 * Runs the blocks as one `set -eo pipefail` bash script in `cwd`, in its own process group, and
 * ends whatever the script left in the background once bash exits.
 */
export async function runDocScript(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn('bash', ['-c', `set -eo pipefail\n${script}`], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const [code] = (await once(child, 'exit')) as [number | null];
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // nothing left in the group
  }
  return { code, out, err };
}
