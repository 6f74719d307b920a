// Reads a secret (a password) for the CLI: at a prompt without echo when stdin is a terminal, or
// the first line of stdin when it is piped. Never from argv, where shell history and `ps` keep it.
import { UsageError } from './types.js';

export async function readSecret(what: string, stdin: NodeJS.ReadStream = process.stdin): Promise<string> {
  const value = stdin.isTTY ? await prompt(what, stdin) : await firstLine(stdin);
  if (value === '') throw new UsageError(`no ${what} given: type it at the prompt, or pipe it on stdin`);
  return value;
}

async function firstLine(stdin: NodeJS.ReadStream): Promise<string> {
  let text = '';
  for await (const chunk of stdin) {
    text += chunk;
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0];
}

/** a prompt on stderr (stdout stays for the answer); keys are read in raw mode and not echoed */
function prompt(what: string, stdin: NodeJS.ReadStream): Promise<string> {
  process.stderr.write(`${what}: `);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const done = (err?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (keys: string) => {
      for (const ch of keys) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003' || ch === '\u0004') return done(new UsageError('cancelled'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else if (ch >= ' ') value += ch;
      }
    };
    stdin.on('data', onData);
  });
}
