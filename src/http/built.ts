// Where the build's outputs lie for the server (scripts/build.mjs): dist/ of the package this file
// belongs to, whether it runs from src/ (tsx) or from dist/ (`npm start`). The console and the
// /docs explorer are served from there. docs/operations.md#install
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `dist/<parts>` of the enclosing package, or undefined outside one */
export function builtPath(parts: string[], from = dirname(fileURLToPath(import.meta.url))): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'dist', ...parts);
    if (dirname(dir) === dir) return undefined;
  }
}
