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
    const probe = bytes.toString('latin1', 0, Math.min(bytes.length, STATUS_PREFIX.length));
    if (!STATUS_PREFIX.startsWith(probe)) throw invalid(`status line "${probe}"`);
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

  private parseHead(text: string): void {
    const lines = text.split('\n');
    // drop the CRs, and the two empty entries the blank line leaves
    for (let i = 0; i < lines.length; i++) if (lines[i].endsWith('\r')) lines[i] = lines[i].slice(0, -1);
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    const m = STATUS_LINE.exec(lines[0] ?? '');
    if (!m) throw invalid(`status line "${(lines[0] ?? '').slice(0, 40)}"`);
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
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i];
      const colon = line.indexOf(':');
      // obsolete line folding (a line starting with a blank) is refused, as llhttp does
      if (colon <= 0 || line[0] === ' ' || line[0] === '\t') throw invalid(`header line "${line.slice(0, 40)}"`);
      const name = line.slice(0, colon);
      if (!TOKEN.test(name)) throw invalid(`header name "${name.slice(0, 40)}"`);
      const value = line.slice(colon + 1).trim();
      rawHeaders.push(name, value);
      switch (name.length) {
        case 10:
          if (name.toLowerCase() === 'connection') {
            const tokens = value
              .toLowerCase()
              .split(',')
              .map((t) => t.trim());
            if (tokens.includes('close')) close = true;
            if (tokens.includes('keep-alive')) keepAliveHeader = true;
          } else if (name.toLowerCase() === 'keep-alive') {
            const t = /(?:^|[\s,])timeout\s*=\s*(\d+)/i.exec(value);
            if (t) keepAliveMs = Number(t[1]) * 1000;
          }
          break;
        case 14:
          if (name.toLowerCase() === 'content-length') {
            // RFC 9110 §8.6: a list of one repeated value is that value; anything else is an error
            for (const v of value.split(',')) {
              const d = v.trim();
              if (!/^\d{1,15}$/.test(d)) throw invalid(`Content-Length "${value.slice(0, 40)}"`);
              if (length !== undefined && length !== Number(d)) throw invalid('conflicting Content-Length values');
              length = Number(d);
            }
          }
          break;
        case 17:
          if (name.toLowerCase() === 'transfer-encoding') {
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
