import { describe, expect, it } from 'vitest';
import { escapeHeaderValue, parseTemplate, renderTemplate } from '../../../src/domain/webhook/template.js';

const event = {
  eventType: 'temp',
  homeId: 12,
  timestamp: '2026-11-22T12:00:00.123Z',
  eventData: {
    foo: { bar: 'baz', n: 1.5, t: true, f: false, z: null },
    buz: ['zero', 'one', { deep: [1, [2, 3]] }],
    a: [[0, 1, { b: 'ab' }]],
    quote: 'say "hi"\n',
    uni: 'héllo ☃ 😀',
    empty: {},
    list: [],
    'key with.dot': 1,
  },
};

const body = (src: string, data: unknown = event) => renderTemplate(parseTemplate(src), data, 'body');
const header = (src: string, data: unknown = event) => renderTemplate(parseTemplate(src), data, 'header');

describe('renderTemplate: paths (docs/webhooks.md#templates (rule 4))', () => {
  it.each([
    ['{{eventType}}', 'temp'],
    ['{{eventData.foo.bar}}', 'baz'],
    ['{{eventData.buz[1]}}', 'one'],
    ['{{ eventData.buz[2].deep[1][0] }}', '2'],
    ['{{eventData.a[0][2].b}}', 'ab'],
    ['id={{homeId}}&t={{ timestamp }}', 'id=12&t=2026-11-22T12:00:00.123Z'],
  ])('%s → %s', (src, out) => expect(body(src)).toBe(out));
});

describe('renderTemplate: leaves substitute as plain text', () => {
  it.each([
    ['{{eventData.foo.bar}}', 'baz'], // strings without quotes
    ['{{eventData.quote}}', 'say "hi"\n'], // nothing escaped in a body
    ['{{eventData.foo.n}}', '1.5'],
    ['{{eventData.foo.t}}', 'true'],
    ['{{eventData.foo.f}}', 'false'],
    ['{{eventData.foo.z}}', 'null'],
    ['{{eventData.uni}}', 'héllo ☃ 😀'],
  ])('%s → %j', (src, out) => expect(body(src)).toBe(out));

  it('fits a number into a JSON body', () => {
    expect(JSON.parse(body('{"n": {{homeId}}, "s": "{{eventType}}"}'))).toEqual({ n: 12, s: 'temp' });
  });
});

describe('renderTemplate: missing nodes yield "" (docs/webhooks.md#templates (rule 5))', () => {
  it.each([
    '{{nope}}',
    '{{eventData.nope.deeper}}',
    '{{eventData.buz[3]}}',
    '{{eventData.buz[99999]}}',
    '{{eventData.foo[0]}}', // index on an object
    '{{eventData.buz.length}}', // name on an array
    '{{eventType.length}}', // name on a string
    '{{eventData.foo.z.x}}', // child of null
    '{{eventData.key}}',
    '{{toString}}', // inherited, not own
    '{{__proto__}}',
    '{{constructor.name}}',
  ])('%s → ""', (src) => expect(body(`[${src}]`)).toBe('[]'));

  it('renders against non-object data without throwing', () => {
    for (const data of [null, undefined, 5, 'str', [1, 2]]) expect(body('{{a.b[0]}}', data)).toBe('');
  });
});

describe('renderTemplate: non-leaf nodes yield escaped JSON (docs/webhooks.md#templates (rule 6))', () => {
  it('escapes an object for use inside a JSON string', () => {
    const out = body('{{eventData.foo}}');
    expect(out).toBe('{\\"bar\\":\\"baz\\",\\"n\\":1.5,\\"t\\":true,\\"f\\":false,\\"z\\":null}');
    expect(JSON.parse(JSON.parse(`"${out}"`))).toEqual(event.eventData.foo);
  });

  it('round-trips arrays, nested strings with quotes and unicode through a JSON string', () => {
    for (const path of ['eventData', 'eventData.buz', 'eventData.a[0]', 'eventData.empty', 'eventData.list']) {
      const doc = JSON.parse(body(`{"raw": "{{${path}}}"}`));
      const expected = path
        .split(/[.[\]]+/)
        .filter(Boolean)
        .reduce<any>((n, k) => n[k], event);
      expect(JSON.parse(doc.raw)).toEqual(expected);
    }
  });

  it('is JSON.stringify twice, minus the outer quotes', () => {
    expect(body('{{eventData.buz}}')).toBe(JSON.stringify(JSON.stringify(event.eventData.buz)).slice(1, -1));
    expect(body('{{eventData.empty}}{{eventData.list}}')).toBe('{}[]');
  });
});

describe('renderTemplate: header mode is HTTP-safe after substitution (docs/webhooks.md#templates (rule 7))', () => {
  const SAFE = /^[\t\x20-\x7e]*$/;

  it('leaves printable ASCII and tabs alone', () => {
    expect(header('Bearer {{eventType}}\t{{homeId}} %2F')).toBe('Bearer temp\t12 %2F');
  });

  it('percent-encodes control characters from the data', () => {
    expect(header('{{eventData.quote}}')).toBe('say "hi"%0A');
    expect(header('{{x}}', { x: 'a\r\nInjected: yes\u0000\u007f' })).toBe('a%0D%0AInjected: yes%00%7F');
  });

  it('percent-encodes non-ASCII as UTF-8, in data and in the literal text', () => {
    expect(header('{{eventData.uni}}')).toBe('h%C3%A9llo %E2%98%83 %F0%9F%98%80');
    expect(header('café')).toBe('caf%C3%A9');
  });

  it('encodes a lone surrogate as U+FFFD instead of throwing', () => {
    expect(escapeHeaderValue('a\ud800b')).toBe('a%EF%BF%BDb');
    expect(escapeHeaderValue('\udc00')).toBe('%EF%BF%BD');
  });

  it('produces a header-safe value for a non-leaf node', () => {
    const out = header('{{eventData}}');
    expect(out).toMatch(SAFE);
    expect(out).toContain('h%C3%A9llo');
  });

  it('does not escape in body mode', () => {
    expect(body('{{eventData.uni}}')).toBe('héllo ☃ 😀');
  });
});
