// What one webhook exchange comes to (http1-pool.ts), and the readings of an answer it needs.

export interface WebhookResult {
  /** A 2xx status and a response read to its end or to the byte cap. */
  ok: boolean;
  status?: number;
  /** Response headers, names lowercased, repeated headers joined with ", ". */
  headers?: Record<string, string>;
  /** The first maxResponseBytes of the response body, decoded as UTF-8. */
  responseBody: string;
  latencyMs: number;
  /**
   * TIMEOUT, REDIRECT_NOT_FOLLOWED, TARGET_NOT_ALLOWED, RESPONSE_ABORTED (closed mid-answer),
   * INVALID_RESPONSE, RESPONSE_HEAD_TOO_LARGE, CLIENT_CLOSED, ERR_INVALID_CHAR or
   * ERR_INVALID_HTTP_TOKEN (a header we would not send), or a socket's code (ECONNREFUSED,
   * ECONNRESET when closed before any answer, a TLS certificate error, ...).
   */
  error?: string;
  /** From Retry-After (delay-seconds or HTTP-date), in ms from now, never negative. */
  retryAfterMs?: number;
}

/** Retry-After as ms from `now`: delay-seconds or an HTTP-date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if ([...text].every((ch) => ch >= '0' && ch <= '9')) return Number(text) * 1000;
  // An HTTP-date always names a day and month; without letters, Date.parse would accept "-5".
  if (![...text].some((ch) => (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z'))) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

// The cap may split a multi-byte character; a streaming decode drops the incomplete tail rather
// than ending the text with U+FFFD (and drops a byte order mark). Text that ends in ASCII and
// starts without a BOM (nearly every answer) decodes the same without a decoder.
export function decodeUtf8(chunks: Buffer[], length: number): string {
  if (length === 0) return '';
  const bytes = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, length);
  if (bytes[bytes.length - 1] < 0x80 && bytes[0] !== 0xef) return bytes.toString('utf8');
  return new TextDecoder('utf-8').decode(bytes, { stream: true });
}

export function errorCode(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string') return code;
  // autoSelectFamily reports "every address failed" as an AggregateError of per-address errors.
  if (err instanceof AggregateError) return errorCode(err.errors[0]);
  return 'NETWORK_ERROR';
}
