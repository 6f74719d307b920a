// The Mailer port over SMTP (nodemailer): `smtp://user:pass@host:587` (STARTTLS when the server
// offers it) or `smtps://host:465` (TLS from the start); docs/operations.md#mail.
import nodemailer from 'nodemailer';
import type { Mailer } from '../../ports/mailer.js';

export function createSmtpMailer({ url, from }: { url: string; from: string }): Mailer {
  // a connection per message: account mail is rare, and nothing stays open between mails
  const transport = nodemailer.createTransport(url, { from });
  return {
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
    async close() {
      transport.close();
    },
  };
}
