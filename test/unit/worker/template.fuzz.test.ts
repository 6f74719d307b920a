// Randomized checks of the template language: seeded, so a failure is reproducible from its seed.
import { describe, expect, it } from 'vitest';
import { mulberry32, type Rng } from '../../helpers/random.js';
import { buildWebhookRequest, parseTemplate, renderTemplate, TemplateError } from '../../../src/domain/webhook/template.js';

const SAFE = /^[\t\x20-\x7e]*$/;

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)];

const NAMES = ['eventData', 'eventType', 'foo', 'bar', 'buz', 'a', 'b', 'é', '😀', 'x-y', '0'];
const FRAGMENTS = [
  '{{',
  '}}',
  '{',
  '}',
  '.',
  '..',
  '[',
  ']',
  '[0]',
  '[1]',
  '[-1]',
  '[x]',
  '[ 2 ]',
  ' ',
  '\t',
  '\n',
  '\r\n',
  'text',
  '"',
  ':',
  ',',
  'é',
  '☃',
  '😀',
  '\u0000',
  '\u007f',
  '\u0085',
  '\u00a0',
  '\ud800',
  '\udc00',
  '%',
  '\\',
  ...NAMES,
];

function randomTemplate(rng: Rng): string {
  let out = '';
  const n = Math.floor(rng() * 14);
  for (let i = 0; i < n; i++) {
    // Half the time, a well-formed tag, so rendering gets exercised as much as rejection.
    out += rng() < 0.3 ? wellFormedTag(rng) : pick(rng, FRAGMENTS);
  }
  return out;
}

function wellFormedTag(rng: Rng): string {
  const ws = () => pick(rng, ['', '', ' ', '  ', '\t', '\n']);
  let path = pick(rng, NAMES);
  const depth = Math.floor(rng() * 4);
  for (let i = 0; i < depth; i++) {
    path += rng() < 0.5 ? `${ws()}.${ws()}${pick(rng, NAMES)}` : `${ws()}[${ws()}${Math.floor(rng() * 4)}${ws()}]`;
  }
  return `{{${ws()}${path}${ws()}}}`;
}

function randomValue(rng: Rng, depth: number): unknown {
  const r = rng();
  if (depth > 3 || r < 0.5) {
    return pick(rng, [null, true, false, 0, -1.5, 1e21, 42, '', 'plain', 'q"uote', 'line\nbreak', 'é☃😀', '\u0000\u001f', '\ud800']);
  }
  if (r < 0.75) return Array.from({ length: Math.floor(rng() * 4) }, () => randomValue(rng, depth + 1));
  const obj: Record<string, unknown> = {};
  for (let i = Math.floor(rng() * 4); i > 0; i--) obj[pick(rng, NAMES)] = randomValue(rng, depth + 1);
  return obj;
}

function randomEvent(rng: Rng): Record<string, unknown> {
  return { eventType: 'fuzz', homeId: 1, eventData: randomValue(rng, 0), foo: randomValue(rng, 1), buz: randomValue(rng, 1) };
}

// An independent reading of docs/webhooks.md#templates (rule 4)-6.4.6 to compare against.
function expectedValue(event: unknown, steps: (string | number)[]): string {
  let node: any = event;
  for (const step of steps) {
    const ok =
      typeof step === 'number'
        ? Array.isArray(node) && step < node.length
        : node !== null && typeof node === 'object' && !Array.isArray(node) && Object.hasOwn(node, step);
    if (!ok) return '';
    node = node[step];
  }
  if (node === undefined) return '';
  if (typeof node === 'string') return node;
  if (node === null || typeof node !== 'object') return JSON.stringify(node);
  return JSON.stringify(JSON.stringify(node)).slice(1, -1);
}

describe('template language under random input', () => {
  it('only ever throws TemplateError, and header output is always header-safe', () => {
    const rng = mulberry32(0x6d0e);
    let parsed = 0;
    for (let i = 0; i < 4000; i++) {
      const src = randomTemplate(rng);
      const event = randomEvent(rng);
      try {
        const t = parseTemplate(src);
        parsed++;
        for (const part of t.parts) if (part.kind === 'path') expect(src.startsWith('{{', part.position)).toBe(true);
        expect(typeof renderTemplate(t, event, 'body')).toBe('string');
        expect(renderTemplate(t, event, 'header')).toMatch(SAFE);
      } catch (err) {
        if (!(err instanceof TemplateError)) throw new Error(`case ${i} ${JSON.stringify(src)}: ${String(err)}`);
        expect(err.position).toBeGreaterThanOrEqual(0);
        expect(err.position).toBeLessThan(src.length);
      }
    }
    expect(parsed).toBeGreaterThan(1000); // the generator reaches the renderer, not only the errors
  });

  it('buildWebhookRequest throws nothing but TemplateError and emits safe header values', () => {
    const rng = mulberry32(0xbeef);
    for (let i = 0; i < 2000; i++) {
      const headers: Record<string, string> = {};
      for (let h = Math.floor(rng() * 3); h > 0; h--) headers[pick(rng, ['X-A', 'X-B', 'Content-Type', 'x-{{a}}', 'X B'])] = randomTemplate(rng);
      const cfg = { headers, body: rng() < 0.8 ? randomTemplate(rng) : undefined };
      try {
        const req = buildWebhookRequest(cfg, randomEvent(rng));
        for (const value of Object.values(req.headers)) expect(value).toMatch(SAFE);
        expect(typeof req.body).toBe('string');
      } catch (err) {
        if (!(err instanceof TemplateError)) throw new Error(`case ${i} ${JSON.stringify(cfg)}: ${String(err)}`);
      }
    }
  });

  it('resolves generated paths like an independent reading of the docs', () => {
    const rng = mulberry32(42);
    for (let i = 0; i < 2000; i++) {
      const event = randomEvent(rng);
      const steps: (string | number)[] = [pick(rng, ['eventData', 'foo', 'buz', 'nope'])];
      let src = steps[0] as string;
      for (let d = Math.floor(rng() * 4); d > 0; d--) {
        const step = rng() < 0.5 ? pick(rng, NAMES) : Math.floor(rng() * 4);
        steps.push(step);
        src += typeof step === 'number' ? ` [ ${step} ]` : ` . ${step}`;
      }
      expect(renderTemplate(parseTemplate(`{{ ${src} }}`), event, 'body')).toBe(expectedValue(event, steps));
    }
  });
});
