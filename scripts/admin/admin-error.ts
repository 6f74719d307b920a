// An error whose message is the whole explanation for the operator (printed as `error: <message>`,
// exit code 2), and small helpers shared by backup and restore.

export class AdminError extends Error {
  override name = 'AdminError';
}

export const isPostgres = (url: string) => /^postgres(ql)?:\/\//.test(url);

/** a command line to paste into a POSIX shell */
export const shellLine = (argv: string[]) => argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
