// Outgoing mail (docs/concepts.md#accounts): email verification and password reset codes. The
// adapter (src/adapters/mail/smtp.ts) sends through the server named by HEARTH_SMTP_URL.
export interface Mail {
  to: string;
  subject: string;
  /** plain text */
  text: string;
}

export interface Mailer {
  /** resolves once the mail server has accepted the message */
  send(mail: Mail): Promise<void>;
  close(): Promise<void>;
}
