// One webhook exchange, from writing the request to settling a result: the timeout over the whole
// exchange, the response byte cap, and the mapping of every outcome to a WebhookResult.

import type http from 'node:http';

export interface WebhookResult {
  /** A 2xx status and a response read to its end or to the byte cap. */
  ok: boolean;
  status?: number;
  /** Response headers, names lowercased, repeated headers joined with ", ". */
  headers?: Record<string, string>;
  /** The first maxResponseBytes of the response body, decoded as UTF-8. */
  responseBody: string;
  latencyMs: number;
  /** TIMEOUT, REDIRECT_NOT_FOLLOWED, TARGET_NOT_ALLOWED, RESPONSE_ABORTED or a Node code (ECONNREFUSED). */
  error?: string;
  /** From Retry-After (delay-seconds or HTTP-date), in ms from now, never negative. */
  retryAfterMs?: number;
}

export interface ExchangeLimits {
  timeoutMs: number;
  maxResponseBytes: number;
  /** report the response headers; without them Retry-After is read from the raw list */
  headers: boolean;
}

export function readResponse(request: http.ClientRequest, body: Buffer, started: number, limits: ExchangeLimits): Promise<WebhookResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let head: Pick<WebhookResult, 'status' | 'headers' | 'retryAfterMs'> = {};
    let settled = false;

    const settle = (ok: boolean, error?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const result: WebhookResult = { ok, ...head, responseBody: decodeUtf8(chunks, received), latencyMs: performance.now() - started };
      if (error !== undefined) result.error = error;
      resolve(result);
    };

    // One timer for everything: a server that accepts and never answers, or trickles its body
    // forever, is cut here and its socket destroyed (never returned to the pool).
    const timer = setTimeout(() => {
      settle(false, 'TIMEOUT');
      request.destroy();
    }, limits.timeoutMs);

    request.on('error', (err) => settle(false, errorCode(err)));
    request.on('response', (res) => {
      const status = res.statusCode ?? 0;
      // res.headers is built from the raw list on first use: only when asked for
      head = limits.headers ? { status, headers: flattenHeaders(res.headers), ...retryAfter(res.headers['retry-after']) } : { status, ...retryAfter(rawHeader(res.rawHeaders, 'retry-after')) };
      const ok = status >= 200 && status < 300;
      // API.md §9: redirects are never followed; a 3xx is a failed attempt like any non-2xx.
      const error = status >= 300 && status < 400 ? 'REDIRECT_NOT_FOLLOWED' : undefined;
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        const room = limits.maxResponseBytes - received;
        if (chunk.length > room) {
          // API.md §13: keep the first bytes, then drop the connection rather than drain it.
          chunks.push(chunk.subarray(0, room));
          received += room;
          settle(ok, error);
          res.destroy();
          return;
        }
        chunks.push(chunk);
        received += chunk.length;
      });
      res.on('end', () => settle(ok, error)); // read to the end: the socket goes back to the pool
      res.on('error', (err) => settle(false, errorCode(err)));
      res.on('close', () => settle(false, 'RESPONSE_ABORTED')); // closed before 'end'
    });
    try {
      request.end(body);
    } catch (err) {
      settle(false, errorCode(err)); // the promise must settle, and the timer be cleared, regardless
      request.destroy();
    }
  });
}

/** the first value of a header in a raw [name, value, ...] list, any case */
function rawHeader(raw: string[], lower: string): string | undefined {
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === lower.length && raw[i].toLowerCase() === lower) return raw[i + 1];
  return undefined;
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

function retryAfter(value: string | undefined): { retryAfterMs?: number } {
  const ms = parseRetryAfter(value);
  return ms === undefined ? {} : { retryAfterMs: ms };
}

function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

// The cap may split a multi-byte character; a streaming decode drops the incomplete tail rather
// than ending the text with U+FFFD (and drops a byte order mark). Text that ends in ASCII and
// starts without a BOM (nearly every answer) decodes the same without a decoder.
function decodeUtf8(chunks: Buffer[], length: number): string {
  if (length === 0) return '';
  const bytes = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, length);
  if (bytes[bytes.length - 1] < 0x80 && bytes[0] !== 0xef) return bytes.toString('utf8');
  return new TextDecoder('utf-8').decode(bytes, { stream: true });
}

function errorCode(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string') return code;
  // autoSelectFamily reports "every address failed" as an AggregateError of per-address errors.
  if (err instanceof AggregateError) return errorCode(err.errors[0]);
  return 'NETWORK_ERROR';
}
