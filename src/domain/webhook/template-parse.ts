// docs/webhooks.md#templates: the scanner for the `{{ path }}` template language of advanced-mode webhooks.
//
// Grammar (whitespace = any JS `\s`, ignored between tokens, docs/webhooks.md#templates (rule 3)):
//   template := ( text | tag )*
//   tag      := "{{" ws* name ( ws* "." ws* name | ws* "[" ws* digits ws* "]" )* ws* "}}"
//   name     := one or more characters that are not whitespace, ".", "[", "]", "{", "}"
//
// Decisions where the docs are silent (documented in the report and here):
// - There is no escape for a literal "{{": every "{{" opens a tag. A "}}" (or a lone "{", "}")
//   outside a tag is plain text, so JSON bodies like {"a":{"b":1}} need no escaping.
// - Whitespace separates tokens but never joins them: `{{ a b }}` is an error, not `ab`.
// - A path starts with a field name; `[n]` only follows a name or another index.
// - Positions are 0-based offsets into the source string (UTF-16 code units, as JS indexes it).
//   A problem "at" a character points at it; an unclosed "{{" or "[" points at its opener.

export type Segment = { readonly kind: 'field'; readonly name: string } | { readonly kind: 'index'; readonly index: number };

export type Part =
  { readonly kind: 'text'; readonly text: string } | { readonly kind: 'path'; readonly segments: readonly Segment[]; readonly position: number };

export interface Template {
  readonly source: string;
  readonly parts: readonly Part[];
}

export class TemplateError extends Error {
  override readonly name = 'TemplateError';
  /** Which template failed ("body", `header "X-Foo"`), when known. */
  readonly where: string | undefined;

  constructor(
    readonly reason: string,
    readonly position: number,
    where?: string,
  ) {
    super(`${where ? `${where}: ` : ''}${reason} at position ${position}`);
    this.where = where;
  }

  /** The same problem, attributed to a named header or the body. */
  in(where: string): TemplateError {
    return new TemplateError(this.reason, this.position, where);
  }
}

const isSpace = (ch: string): boolean => /\s/.test(ch); // JS whitespace, Unicode spaces included
const isDigit = (ch: string): boolean => ch >= '0' && ch <= '9';
const isNameChar = (ch: string): boolean => !isSpace(ch) && !'.[]{}'.includes(ch);

export function parseTemplate(src: string): Template {
  const parts: Part[] = [];
  let i = 0;
  while (i < src.length) {
    const open = src.indexOf('{{', i);
    if (open === -1) break;
    if (open > i) parts.push({ kind: 'text', text: src.slice(i, open) });
    const tag = new TagScanner(src, open);
    parts.push({ kind: 'path', segments: tag.scan(), position: open });
    i = tag.pos;
  }
  if (i < src.length) parts.push({ kind: 'text', text: src.slice(i) });
  return { source: src, parts };
}

/** Scans one `{{ ... }}` tag starting at `open`; leaves `pos` just after the closing "}}". */
class TagScanner {
  pos: number;
  private readonly segments: Segment[] = [];

  constructor(
    private readonly src: string,
    private readonly open: number,
  ) {
    this.pos = open + 2;
  }

  scan(): Segment[] {
    this.skipSpace();
    this.field(null);
    for (;;) {
      this.skipSpace();
      const ch = this.peek();
      if (ch === undefined) this.fail('unclosed "{{"', this.open);
      if (ch === '}' && this.src[this.pos + 1] === '}') {
        this.pos += 2;
        return this.segments;
      }
      if (ch === '.') {
        const dot = this.pos++;
        this.skipSpace();
        this.field(dot);
      } else if (ch === '[') {
        this.index();
      } else if (ch === '}' && this.pos + 1 >= this.src.length) {
        this.fail('unclosed "{{"', this.open);
      } else {
        this.fail(ch === '}' ? 'expected "}}"' : `unexpected "${ch}", expected ".", "[" or "}}"`, this.pos);
      }
    }
  }

  /** A field name; `dot` is the offset of the "." before it, or null for the first segment. */
  private field(dot: number | null): void {
    const start = this.pos;
    while (this.pos < this.src.length && isNameChar(this.src[this.pos])) this.pos++;
    if (this.pos > start) {
      this.segments.push({ kind: 'field', name: this.src.slice(start, this.pos) });
      return;
    }
    const ch = this.peek();
    if (ch === undefined) this.fail('unclosed "{{"', this.open);
    if (dot === null) {
      if (ch === '}') this.fail('empty path', start);
      if (ch === '.') this.fail('path starts with "."', start);
      this.fail(`path must start with a field name, found "${ch}"`, start);
    }
    if (ch === '.') this.fail('doubled dot ".."', start);
    if (ch === '}') this.fail('path ends with "."', start);
    this.fail(`expected a field name after ".", found "${ch}"`, start);
  }

  /** `[ digits ]`: a non-negative integer array index. */
  private index(): void {
    const bracket = this.pos++;
    this.skipSpace();
    const start = this.pos;
    while (this.pos < this.src.length && isDigit(this.src[this.pos])) this.pos++;
    const ch = this.peek();
    if (this.pos === start) {
      if (ch === undefined || ch === '}') this.fail('unclosed "["', bracket);
      if (ch === ']') this.fail('empty index "[]"', start);
      this.fail('index must be a non-negative integer', start);
    }
    const index = Number(this.src.slice(start, this.pos));
    if (!Number.isSafeInteger(index)) this.fail('index is too large', start);
    this.skipSpace();
    const close = this.peek();
    if (close === undefined || close === '}') this.fail('unclosed "["', bracket);
    if (close !== ']') this.fail('index must be a non-negative integer', this.pos);
    this.pos++;
    this.segments.push({ kind: 'index', index });
  }

  private peek(): string | undefined {
    return this.pos < this.src.length ? this.src[this.pos] : undefined;
  }

  private skipSpace(): void {
    while (this.pos < this.src.length && isSpace(this.src[this.pos])) this.pos++;
  }

  private fail(reason: string, position: number): never {
    throw new TemplateError(reason, position);
  }
}
