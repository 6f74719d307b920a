// Admin CLI (docs/concepts.md): `npm run admin -- <command>`, or `node dist/scripts/admin/main.js <command>` (bundled by scripts/build.mjs)
// once built. Works offline on the same data directory or database as the server. `--help` lists
// the commands; scripts/admin/cli.ts is the front, each command loads only what it needs.
import { main } from './admin/cli.js';

process.exitCode = await main(process.argv.slice(2), {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
});
