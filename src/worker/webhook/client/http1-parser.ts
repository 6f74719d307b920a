// An HTTP/1.1 response parser (RFC 9112) for the webhook client's own connections
// (http1-pool.ts): fed the bytes of a connection as they arrive, it reports the head, the body
// (decoded from chunked transfer coding) and the end of the message. Responses only, to requests
// that are never HEAD: what a webhook receiver may answer, from the strict to the sloppy (bare LF
// line ends, 1xx interim answers, close-delimited bodies), and nothing that smuggles a second
// message or an unbounded line past it.

export class ResponseError extends Error {
  override readonly name = 'ResponseError';
  constructor(
    /** INVALID_RESPONSE, RESPONSE_HEAD_TOO_LARGE */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ResponseHead {
  status: number;
  /** [name, value, ...] as received (names in their own case, values without surrounding blanks) */
  rawHeaders: string[];
  /** the connection may carry another exchange once this message has ended */
  keepAlive: boolean;
  /** `Keep-Alive: timeout=N` from the server, in ms */
  keepAliveMs?: number;
}

export interface ParserEvents {
  head(head: ResponseHead): void;
  /** a piece of the body (after transfer decoding), a view of the fed bytes */
  body(chunk: Buffer): void;
}

// What llhttp (Node's parser) allows by default: a head of 16 KiB.
export const MAX_HEAD_BYTES = 16 * 1024;
// a chunk-size line with extensions; anything longer is not a webhook answer
const MAX_CHUNK_LINE = 1024;
// 13 hex digits reach 2^52: past that, a size is no longer a safe integer
const MAX_CHUNK_SIZE_DIGITS = 13;

const enum State {
  Head,
  Length,
  ChunkSize,
  ChunkData,
  ChunkDataEnd,
  Trailers,
  UntilClose,
  Done,
}

/** RFC 9110 §5.1 field names (of answers here, and of the requests http-client.ts writes) */
export const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: [^\r\n]*)?$/;
const HEX = /^[0-9a-fA-F]+$/;
const DIGITS = /^\d{1,15}$/;
const STATUS_PREFIX = 'HTTP/1.';

const invalid = (why: string) => new ResponseError('INVALID_RESPONSE', `invalid HTTP response: ${why}`);

export class ResponseParser {
  private state = State.Head;
  /** bytes of an unfinished line (head, chunk size, trailers) carried between feeds */
  private pending: Buffer | undefined;
  /** body bytes still to come: of the Content-Length, or of the current chunk */
  private remaining = 0;
  private trailerBytes = 0;
  private keepAlive = false;

  constructor(private readonly on: ParserEvents) {}

  /** the message has ended (feed returns how much of the last bytes it took) */
  get done(): boolean {
    return this.state === State.Done;
  }

  /** whether the body, if any, runs until the connection closes */
  get untilClose(): boolean {
    return this.state === State.UntilClose;
  }

  /** a head has been parsed (a 1xx interim answer does not count) */
  get started(): boolean {
    return this.state !== State.Head;
  }

  /**
   * Feeds the next bytes of the connection. Returns how many were part of this message: all of
   * them, or fewer once it has ended (the rest belong to no request of ours). Throws ResponseError.
   */
  feed(data: Buffer): number {
    let at = 0;
    while (at < data.length && this.state !== State.Done) {
      switch (this.state) {
        case State.Head:
          at = this.readHead(data, at);
          break;
        case State.Length:
          at = this.takeBody(data, at, State.Done);
          break;
        case State.UntilClose:
          this.on.body(at === 0 ? data : data.subarray(at));
          at = data.length;
          break;
        case State.ChunkSize:
        case State.Trailers:
        case State.ChunkDataEnd: {
          const line = this.line(data, at, this.state === State.ChunkSize ? MAX_CHUNK_LINE : MAX_HEAD_BYTES);
          if (!line) return data.length;
          at = line.next;
          this.onLine(line.text);
          break;
        }
        case State.ChunkData:
          at = this.takeBody(data, at, State.ChunkDataEnd);
          break;
      }
    }
    return at;
  }

  /**
   * The connection closed. True when that ends the message (a close-delimited body); false when
   * the message was cut short.
   */
  close(): boolean {
    if (this.state === State.UntilClose) {
      this.state = State.Done;
      return true;
    }
    return this.state === State.Done;
  }

  /** the connection may carry another exchange (valid once done) */
  get reusable(): boolean {
    return this.keepAlive;
  }

  /** up to `remaining` body bytes from data at `at`, then `next` once they are all in; returns where it stopped */
  private takeBody(data: Buffer, at: number, next: State): number {
    const n = Math.min(this.remaining, data.length - at);
    this.on.body(data.subarray(at, at + n));
    this.remaining -= n;
    if (this.remaining === 0) this.state = next;
    return at + n;
  }

  private onLine(text: string): void {
    if (this.state === State.ChunkDataEnd) {
      if (text !== '') throw invalid('chunk data longer than its size');
      this.state = State.ChunkSize;
      return;
    }
    if (this.state === State.Trailers) {
      this.trailerBytes += text.length + 2;
      if (this.trailerBytes > MAX_HEAD_BYTES) throw new ResponseError('RESPONSE_HEAD_TOO_LARGE', `response trailers exceed ${MAX_HEAD_BYTES} bytes`);
      if (text === '') this.state = State.Done;
      return;
    }
    const semi = text.indexOf(';');
    const digits = (semi < 0 ? text : text.slice(0, semi)).trimEnd();
    if (!HEX.test(digits) || digits.length > MAX_CHUNK_SIZE_DIGITS) throw invalid(`chunk size "${digits.slice(0, 20)}"`);
    this.remaining = parseInt(digits, 16);
    this.state = this.remaining === 0 ? State.Trailers : State.ChunkData;
  }

  /** one line (without its CR LF or LF) from data at `at`, joined with what an earlier feed left */
  private line(data: Buffer, at: number, max: number): { text: string; next: number } | undefined {
    const lf = data.indexOf(10, at);
    const carried = this.pending?.length ?? 0;
    if (lf < 0) {
      if (carried + data.length - at > max) throw invalid('line too long');
      this.pending = this.pending ? Buffer.concat([this.pending, data.subarray(at)]) : Buffer.from(data.subarray(at));
      return undefined;
    }
    if (carried + lf - at > max) throw invalid('line too long');
    let bytes = data.subarray(at, lf);
    if (this.pending) {
      bytes = Buffer.concat([this.pending, bytes]);
      this.pending = undefined;
    }
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 13 ? bytes.length - 1 : bytes.length;
    return { text: bytes.toString('latin1', 0, end), next: lf + 1 };
  }

  /** reads up to the blank line ending a head; returns where what follows it starts in data */
  private readHead(data: Buffer, at: number): number {
    // RFC 9112 §2.2: empty lines before the status line are ignored
    if (!this.pending) {
      while (at < data.length && (data[at] === 10 || data[at] === 13)) at++;
      if (at === data.length) return at;
    }
    const fresh = at === 0 ? data : data.subarray(at);
    const carried = this.pending?.length ?? 0;
    const bytes = this.pending ? Buffer.concat([this.pending, fresh]) : fresh;
    // a blank line: LF LF or LF CR LF, whose first LF may be among the carried bytes
    let end = -1;
    for (let i = bytes.indexOf(10, Math.max(0, carried - 3)); i >= 0 && end < 0; i = bytes.indexOf(10, i + 1)) {
      if (bytes[i + 1] === 10) end = i + 2;
      else if (bytes[i + 1] === 13 && bytes[i + 2] === 10) end = i + 3;
    }
    // not an HTTP/1 answer at all (another protocol on the port): refused at once, not after
    // 16 KiB or the timeout
    const probed = Math.min(bytes.length, STATUS_PREFIX.length);
    for (let i = 0; i < probed; i++) {
      if (bytes[i] !== STATUS_PREFIX.charCodeAt(i)) throw invalid(`status line "${bytes.toString('latin1', 0, probed)}"`);
    }
    if (end < 0 ? bytes.length > MAX_HEAD_BYTES : end > MAX_HEAD_BYTES) {
      throw new ResponseError('RESPONSE_HEAD_TOO_LARGE', `response head exceeds ${MAX_HEAD_BYTES} bytes`);
    }
    if (end < 0) {
      this.pending = carried > 0 ? bytes : Buffer.from(fresh);
      return data.length;
    }
    this.pending = undefined;
    this.parseHead(bytes.toString('latin1', 0, end));
    return at + end - carried;
  }

  /**
   * The head's text (up to and including its blank line), in one pass over it: each line is
   * found by its LF and read where it lies (a line's CR dropped), and only names and values are
   * cut out of it. Splitting the text into lines first, and each line again, was most of what
   * a delivery's answer cost the sender thread.
   */
  private parseHead(text: string): void {
    let lf = text.indexOf('\n');
    const statusLine = text.slice(0, lineEnd(text, lf));
    const m = STATUS_LINE.exec(statusLine);
    if (!m) throw invalid(`status line "${statusLine.slice(0, 40)}"`);
    const http10 = m[1] === '0';
    const status = Number(m[2]);
    if (status < 100) throw invalid(`status ${m[2]}`);
    const rawHeaders: string[] = [];
    let length: number | undefined;
    let chunked = false;
    let encoded = false;
    let close = false;
    let keepAliveHeader = false;
    let keepAliveMs: number | undefined;
    // the head ends with its one empty line (readHead cut it there)
    for (let start = lf + 1; start < text.length; start = lf + 1) {
      lf = text.indexOf('\n', start);
      const end = lineEnd(text, lf);
      if (end === start) break;
      const colon = text.indexOf(':', start);
      const first = text.charCodeAt(start);
      // obsolete line folding (a line starting with a blank) is refused, as llhttp does
      if (colon <= start || colon >= end || first === 0x20 || first === 0x09) throw invalid(`header line "${text.slice(start, Math.min(end, start + 40))}"`);
      const name = text.slice(start, colon);
      if (!isToken(text, start, colon)) throw invalid(`header name "${name.slice(0, 40)}"`);
      const value = text.slice(colon + 1, end).trim();
      rawHeaders.push(name, value);
      switch (name.length) {
        case 10:
          if (named(name, 'connection')) {
            const lower = value.toLowerCase();
            // the common answers, one token: no list to split
            if (lower === 'keep-alive') keepAliveHeader = true;
            else if (lower === 'close') close = true;
            else {
              const tokens = lower.split(',').map((t) => t.trim());
              if (tokens.includes('close')) close = true;
              if (tokens.includes('keep-alive')) keepAliveHeader = true;
            }
          } else if (named(name, 'keep-alive')) {
            const t = /(?:^|[\s,])timeout\s*=\s*(\d+)/i.exec(value);
            if (t) keepAliveMs = Number(t[1]) * 1000;
          }
          break;
        case 14:
          if (named(name, 'content-length')) {
            // RFC 9110 §8.6: a list of one repeated value is that value; anything else is an error
            for (const v of value.includes(',') ? value.split(',') : [value]) {
              const d = v.trim();
              if (!DIGITS.test(d)) throw invalid(`Content-Length "${value.slice(0, 40)}"`);
              if (length !== undefined && length !== Number(d)) throw invalid('conflicting Content-Length values');
              length = Number(d);
            }
          }
          break;
        case 17:
          if (named(name, 'transfer-encoding')) {
            encoded = true;
            // only the last coding frames the message (RFC 9112 §6.3)
            const codings = value
              .toLowerCase()
              .split(',')
              .map((t) => t.trim())
              .filter((t) => t !== '');
            chunked = codings[codings.length - 1] === 'chunked';
          }
          break;
      }
    }
    if (status >= 100 && status < 200) {
      // 101 would hand the connection to another protocol, which we never asked for
      if (status === 101) throw invalid('101 Switching Protocols to a webhook');
      return; // interim: the final answer follows on the same connection
    }
    // RFC 9112 §6.1: Transfer-Encoding in an HTTP/1.0 answer is faulty framing; close after it
    this.keepAlive = http10 ? keepAliveHeader && !close && !encoded : !close;
    if (status === 204 || status === 304) {
      this.state = State.Done;
    } else if (encoded) {
      // RFC 9112 §6.1: with both, Transfer-Encoding wins and the connection is not reused
      if (length !== undefined) this.keepAlive = false;
      if (chunked) this.state = State.ChunkSize;
      else {
        this.keepAlive = false;
        this.state = State.UntilClose;
      }
    } else if (length !== undefined) {
      this.remaining = length;
      this.state = length === 0 ? State.Done : State.Length;
    } else {
      this.keepAlive = false;
      this.state = State.UntilClose;
    }
    const head: ResponseHead = { status, rawHeaders, keepAlive: this.keepAlive };
    if (keepAliveMs !== undefined) head.keepAliveMs = keepAliveMs;
    this.on.head(head);
  }
}

/** where the line ending at the LF at `lf` ends, without its CR (a head's lines all end with an LF) */
function lineEnd(text: string, lf: number): number {
  return lf > 0 && text.charCodeAt(lf - 1) === 0x0d ? lf - 1 : lf;
}

/** the bytes of TOKEN, by character code below 128 */
const TOKEN_CHARS = new Uint8Array(128);
for (let c = 0; c < 128; c++) TOKEN_CHARS[c] = TOKEN.test(String.fromCharCode(c)) ? 1 : 0;

/** TOKEN.test(text.slice(from, to)), on the text where it lies (from < to) */
function isToken(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128 || TOKEN_CHARS[c] === 0) return false;
  }
  return true;
}

/**
 * `name.toLowerCase() === lower` for a name of TOKEN characters and a lower-case name of letters
 * and `-`: setting a token character's 0x20 bit lowers a letter and leaves `-` as it is, and
 * makes no other token character a lower-case letter or `-`
 */
function named(name: string, lower: string): boolean {
  if (name.length !== lower.length) return false;
  for (let i = 0; i < lower.length; i++) if ((name.charCodeAt(i) | 0x20) !== lower.charCodeAt(i)) return false;
  return true;
}
