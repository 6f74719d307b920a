// A real SMTP server on loopback (smtp-server) that keeps what it receives, for the account mail
// tests (docs/concepts.md#accounts): Hearth sends through it with HEARTH_SMTP_URL, the test reads the
// code out of the message as a person would. Closed by the caller.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** the whole message as sent: headers, blank line, body (quoted-printable soft breaks undone) */
  raw: string;
}

export interface Mailbox {
  /** `smtp://127.0.0.1:<port>` */
  url: string;
  received: ReceivedMail[];
  /** the mails to one address, in order */
  to(address: string): ReceivedMail[];
  close(): Promise<void>;
}

/** the code of a mail: the line that holds only `XXXX-XXXX` */
export function codeOf(mail: ReceivedMail): string {
  const m = /^\s+([A-Z0-9]{4}-[A-Z0-9]{4})\s*$/m.exec(mail.raw);
  if (!m) throw new Error(`no code in this mail:\n${mail.raw}`);
  return m[1];
}

export async function startMailbox(): Promise<Mailbox> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks)
          .toString('utf8')
          .replace(/=\r?\n/g, '')
          .replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        received.push({ from, to: session.envelope.rcptTo.map((r) => r.address), raw });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    to: (address) => received.filter((m) => m.to.includes(address)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
