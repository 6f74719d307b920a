import { describe, expect, it } from 'vitest';
import { parseTemplate, TemplateError } from '../../../src/domain/webhook/template.js';

function failure(src: string): TemplateError {
  try {
    parseTemplate(src);
  } catch (err) {
    expect(err).toBeInstanceOf(TemplateError);
    return err as TemplateError;
  }
  throw new Error(`expected ${JSON.stringify(src)} to be rejected`);
}

describe('parseTemplate: well-formed notation', () => {
  it('splits text and paths', () => {
    expect(parseTemplate('a {{x}} b').parts).toEqual([
      { kind: 'text', text: 'a ' },
      { kind: 'path', segments: [{ kind: 'field', name: 'x' }], position: 2 },
      { kind: 'text', text: ' b' },
    ]);
  });

  it('reads fields and indexes (docs/webhooks.md#templates (rule 4))', () => {
    const [tag] = parseTemplate('{{a[0][2].b}}').parts;
    expect(tag).toEqual({
      kind: 'path',
      position: 0,
      segments: [
        { kind: 'field', name: 'a' },
        { kind: 'index', index: 0 },
        { kind: 'index', index: 2 },
        { kind: 'field', name: 'b' },
      ],
    });
  });

  it.each(['{{eventData.foo}}', '{{ eventData.foo }}', '{{\teventData . foo\n}}', '{{  eventData  .  foo  }}'])(
    'ignores whitespace inside the braces (docs/webhooks.md#templates (rule 3)): %j',
    (src) => {
      expect(parseTemplate(src).parts).toEqual([
        {
          kind: 'path',
          position: 0,
          segments: [
            { kind: 'field', name: 'eventData' },
            { kind: 'field', name: 'foo' },
          ],
        },
      ]);
    },
  );

  it('ignores whitespace around and inside brackets', () => {
    const [tag] = parseTemplate('{{ buz [ 1 ] }}').parts;
    expect(tag).toMatchObject({
      segments: [
        { kind: 'field', name: 'buz' },
        { kind: 'index', index: 1 },
      ],
    });
  });

  it('accepts names with unicode, dashes and quotes', () => {
    const [tag] = parseTemplate('{{ données.temp-°C.a"b }}').parts;
    expect(tag).toMatchObject({ segments: [{ name: 'données' }, { name: 'temp-°C' }, { name: 'a"b' }] });
  });

  it('treats "}}", "}" and "{" outside a tag as text', () => {
    expect(parseTemplate('{"a":{"b":1}}').parts).toEqual([{ kind: 'text', text: '{"a":{"b":1}}' }]);
    expect(parseTemplate('}} { } ]').parts).toEqual([{ kind: 'text', text: '}} { } ]' }]);
  });

  it('keeps JSON braces around a tag as text', () => {
    expect(parseTemplate('{"v":{{x}}}').parts).toEqual([
      { kind: 'text', text: '{"v":' },
      { kind: 'path', position: 5, segments: [{ kind: 'field', name: 'x' }] },
      { kind: 'text', text: '}' },
    ]);
  });

  it('parses an empty template and adjacent tags', () => {
    expect(parseTemplate('').parts).toEqual([]);
    expect(parseTemplate('{{a}}{{b}}').parts.map((p) => p.kind)).toEqual(['path', 'path']);
  });
});

describe('parseTemplate: malformed notation is an error with its position (docs/webhooks.md#templates (rule 8))', () => {
  it.each([
    // [template, position, reason fragment]
    ['{{', 0, 'unclosed "{{"'],
    ['ab {{ x', 3, 'unclosed "{{"'],
    ['{{ x }', 0, 'unclosed "{{"'],
    ['{{ x.', 0, 'unclosed "{{"'],
    ['{{ a } }}', 5, 'expected "}}"'],
    ['{{}}', 2, 'empty path'],
    ['{{   }}', 5, 'empty path'],
    ['x{{ .a }}', 4, 'path starts with "."'],
    ['{{a..b}}', 4, 'doubled dot'],
    ['{{ a . . b }}', 7, 'doubled dot'],
    ['{{a.}}', 4, 'path ends with "."'],
    ['{{ a. }}', 6, 'path ends with "."'],
    ['{{a.[0]}}', 4, 'expected a field name after "."'],
    ['{{a[0}}', 3, 'unclosed "["'],
    ['{{a[', 3, 'unclosed "["'],
    ['{{a[ 12 ', 3, 'unclosed "["'],
    ['{{a[x]}}', 4, 'non-negative integer'],
    ['{{a[-1]}}', 4, 'non-negative integer'],
    ['{{a[1.5]}}', 5, 'non-negative integer'],
    ['{{a[1 2]}}', 6, 'non-negative integer'],
    ['{{a[]}}', 4, 'empty index'],
    ['{{a[99999999999999999999]}}', 4, 'too large'],
    ['{{[0]}}', 2, 'must start with a field name'],
    ['{{ a b }}', 5, 'unexpected "b"'],
    ['{{ a] }}', 4, 'unexpected "]"'],
    ['{{ a {{ b }}', 5, 'unexpected "{"'],
    ['{{{a}}}', 2, 'must start with a field name'],
    ['ok {{a}} then {{b..c}}', 18, 'doubled dot'],
  ])('%j fails at %i', (src, position, reason) => {
    const err = failure(src);
    expect(err.position).toBe(position);
    expect(err.reason).toContain(reason);
    expect(err.message).toContain(`at position ${position}`);
  });
});
