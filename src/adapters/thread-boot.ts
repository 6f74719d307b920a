// The source a worker_thread is started with (`new Worker(src, { eval: true })`) to run a module
// beside the one that starts it. Source (.ts, run under tsx) or built (.js): the thread loads its
// sibling of the same kind. On Node 20 loader hooks are not inherited by worker threads, so a .ts
// thread registers tsx itself, through tsx's ESM API (its `import` condition, which
// require.resolve cannot pick).
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

/** `from`: the starting module's import.meta.url; `sibling`: the thread's module, without extension */
export function threadBoot(from: string, sibling: string): string {
  const ts = /\.ts$/.test(new URL(from).pathname);
  const register = ts ? `(await import(${JSON.stringify(tsxApi(from))})).register();` : '';
  return `(async () => {
  ${register}
  await import(${JSON.stringify(new URL(`./${sibling}.${ts ? 'ts' : 'js'}`, from).href)});
})();`;
}

function tsxApi(from: string): string {
  const pkg = createRequire(from).resolve('tsx/package.json');
  return pathToFileURL(join(dirname(pkg), 'dist/esm/api/index.mjs')).href;
}
