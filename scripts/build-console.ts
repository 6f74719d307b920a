// Builds the web console (src/console) into dist/console: one minified ES module bundle
// (app.js, Preact and uPlot included), one stylesheet (app.css) and index.html. Nothing is
// fetched at run time from anywhere but the Hearth that serves it, so the console works offline.
// `npm run build:console`; the server serves dist/console at /console (src/http/routes/console.ts).
// The bundle holds the console's own files and packages only: the console names the store port's
// types (`import type`, erased here), never server code (docs/architecture.md#floors-and-imports),
// and the build fails if any other file of ours got in.
import { copyFileSync, mkdirSync, statSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { build, type Metafile } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '..');

export async function buildConsole(outDir = join(ROOT, 'dist/console')): Promise<{ outDir: string; sizes: Record<string, number>; inputs: string[] }> {
  const src = join(ROOT, 'src/console');
  mkdirSync(outDir, { recursive: true });
  const js = await build({
    absWorkingDir: ROOT,
    metafile: true,
    entryPoints: { app: join(src, 'main.tsx') },
    outdir: outDir,
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['chrome111', 'firefox111', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    logLevel: 'warning',
  });
  const strays = notConsole(js.metafile, src);
  if (strays.length) throw new Error(`the console bundle holds files outside src/console: ${strays.join(', ')}`);
  await build({ entryPoints: { app: join(src, 'style.css') }, outdir: outDir, bundle: true, minify: true, logLevel: 'warning' });
  copyFileSync(join(src, 'index.html'), join(outDir, 'index.html'));
  const sizes: Record<string, number> = {};
  for (const f of ['app.js', 'app.css', 'index.html']) sizes[f] = statSync(join(outDir, f)).size;
  return { outDir, sizes, inputs: Object.keys(js.metafile.inputs) };
}

/** the bundle's inputs that are neither the console's own nor a package's */
export function notConsole(metafile: Metafile, src: string): string[] {
  return Object.keys(metafile.inputs).filter((p) => !p.split('/').includes('node_modules') && !resolve(ROOT, p).startsWith(src + sep));
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const { outDir, sizes } = await buildConsole(process.argv[2] ? resolve(process.argv[2]) : undefined);
  console.log(
    `console built into ${outDir}: ${Object.entries(sizes)
      .map(([f, n]) => `${f} ${(n / 1024).toFixed(1)} KiB`)
      .join(', ')}`,
  );
}
