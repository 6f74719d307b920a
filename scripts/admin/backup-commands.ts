// `backup` and `restore`: the data of an embedded (SQLite) server, copied with SQLite's online
// backup API while the server runs; for PostgreSQL, the pg_dump / pg_restore command to run.
import { type Command, stringArg } from './types.js';

export const backup: Command = {
  usage: 'backup <file> [--pages-per-step <n>] [--no-secret] [--quiet]',
  summary:
    'copy the database to <file> while the server keeps running (SQLite online backup; progress on stderr); the file also holds the ' +
    'server secret from the data directory (keep it as safe as the data directory; --no-secret leaves it out). PostgreSQL: prints the pg_dump command',
  maxPositionals: 1,
  options: { 'pages-per-step': { type: 'string' }, 'no-secret': { type: 'boolean' }, quiet: { type: 'boolean' } },
  runWithConfig: async (config, a) => (await import('./backup.js')).backupCommand(config, stringArg(a.positionals[0], '<file>'), a),
};

export const restore: Command = {
  usage: 'restore <file>',
  summary:
    'restore a backup into the data directory (HEARTH_DATA_DIR), which must be empty or not exist yet; then start the server on it. ' +
    'PostgreSQL: prints the pg_restore command',
  maxPositionals: 1,
  runWithConfig: async (config, a) => (await import('./restore.js')).restoreCommand(config, stringArg(a.positionals[0], '<file>')),
};
