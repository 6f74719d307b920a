// The source a worker_thread is started with (`new Worker(src, { eval: true })`) to run a module
// beside the one that starts it. Built (.js in dist/, what `npm start` runs): the thread loads its
// sibling .js and nothing else. Source (.ts, run by vitest, tsx or `npm run dev`): on Node 20 loader
// hooks are not inherited by worker threads, so the thread first registers tsx through its public
// ESM API (`tsx/esm/api`), resolved here, where tsx is installed, not from the thread's eval.
/** `from`: the starting module's import.meta.url; `sibling`: the thread's module, without extension */
export function threadBoot(from: string, sibling: string): string {
  const ts = new URL(from).pathname.endsWith('.ts');
  const register = ts ? `(await import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})).register();` : '';
  return `(async () => {
  ${register}
  await import(${JSON.stringify(new URL(`./${sibling}.${ts ? 'ts' : 'js'}`, from).href)});
})();`;
}
