import { describe, expect, it } from 'vitest';
import { buildWebhookRequest, INVALID_JSON_BODY, TemplateError, validateTemplates } from '../../../src/domain/webhook/template.js';

const payload = {
  eventType: 'door',
  eventData: { open: true, who: 'Zoë "Z"', tags: ['a', 'b'], n: 3 },
  timestamp: '2026-11-22T12:00:00.123Z',
  homeId: 7,
};

function thrown(fn: () => unknown): TemplateError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(TemplateError);
    return err as TemplateError;
  }
  throw new Error('expected a TemplateError');
}

describe('buildWebhookRequest: defaults (docs/webhooks.md#event-webhook)', () => {
  it('sends the payload as JSON with Content-Type application/json', () => {
    expect(buildWebhookRequest({}, payload)).toEqual({
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(payload),
    });
  });

  it('treats an empty body template as no custom body', () => {
    expect(buildWebhookRequest({ body: '' }, payload).body).toBe(JSON.stringify(payload));
  });

  it('keeps a Content-Type set in any case and adds no second one', () => {
    const { headers } = buildWebhookRequest({ headers: { 'content-TYPE': 'text/plain' } }, payload);
    expect(headers).toEqual({ 'content-TYPE': 'text/plain' });
  });

  it('treats an empty Content-Type as not set', () => {
    const { headers } = buildWebhookRequest({ headers: { 'content-type': ' ' }, body: '{{homeId}}' }, payload);
    expect(headers).toEqual({ 'Content-Type': 'application/json' });
  });
});

describe('buildWebhookRequest: headers (docs/webhooks.md#templates (rule 2), 6.4.7)', () => {
  it('substitutes in values, escaped for HTTP', () => {
    const { headers } = buildWebhookRequest({ headers: { 'X-Who': 'by {{eventData.who}}', 'X-Home': '{{ homeId }}' } }, payload);
    expect(headers).toEqual({ 'X-Who': 'by Zo%C3%AB "Z"', 'X-Home': '7', 'Content-Type': 'application/json' });
  });

  it('does not substitute in keys: notation there is not a valid header name', () => {
    const err = thrown(() => buildWebhookRequest({ headers: { 'X-{{eventType}}': 'v' } }, payload));
    expect(err.reason).toContain('not a valid HTTP token');
    expect(err.position).toBe(2);
    expect(err.where).toBe('header name "X-{{eventType}}"');
  });

  it.each(['', 'X Space', 'X:Colon', 'Naïve', 'X\n'])('refuses the header name %j', (name) => {
    thrown(() => buildWebhookRequest({ headers: { [name]: 'v' } }, payload));
  });

  it('refuses the same name twice in different case', () => {
    expect(thrown(() => validateTemplates({ headers: { 'X-A': '1', 'x-a': '2' } })).reason).toContain('twice');
  });

  it('reports which header holds a malformed template', () => {
    const err = thrown(() => buildWebhookRequest({ headers: { Authorization: 'Bearer {{ a..b }}' } }, payload));
    expect(err.where).toBe('header "Authorization"');
    expect(err.position).toBe(12);
    expect(err.message).toBe('header "Authorization": doubled dot ".." at position 12');
  });
});

describe('buildWebhookRequest: JSON validity after substitution (docs/webhooks.md#templates (rule 9))', () => {
  const good = '{"type": "{{eventType}}", "open": {{eventData.open}}, "data": "{{eventData.tags}}"}';
  const bad = '{"who": "{{eventData.who}}"}'; // the quotes in the data break the JSON

  it('renders a valid JSON body', () => {
    const { body } = buildWebhookRequest({ body: good }, payload);
    expect(JSON.parse(body)).toEqual({ type: 'door', open: true, data: '["a","b"]' });
  });

  it.each([
    ['absent', undefined],
    ['application/json', 'application/json'],
    ['with charset', 'application/json; charset=utf-8'],
    ['in upper case with spaces', '  Application/JSON ;charset=UTF-8'],
    ['templated', '{{ctype}}'],
  ])('refuses invalid JSON when Content-Type is %s', (_label, ctype) => {
    const headers = ctype === undefined ? undefined : { 'Content-Type': ctype };
    const data = { ...payload, ctype: 'application/json' };
    const err = thrown(() => buildWebhookRequest({ headers, body: bad }, data));
    expect(err.reason).toBe(INVALID_JSON_BODY);
    expect(err.where).toBe('body');
    expect(err.position).toBeGreaterThanOrEqual(0);
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/vnd.api+json'])('allows a non-JSON body when Content-Type is %s', (ctype) => {
    const { body, headers } = buildWebhookRequest({ headers: { 'Content-Type': ctype }, body: bad }, payload);
    expect(body).toBe('{"who": "Zoë "Z""}');
    expect(headers['Content-Type']).toBe(ctype);
  });

  it('checks validity after substitution: a missing path can break or keep JSON', () => {
    expect(() => buildWebhookRequest({ body: '{"n": {{nope}}}' }, payload)).toThrow(INVALID_JSON_BODY);
    expect(buildWebhookRequest({ body: '{"n": "{{nope}}"}' }, payload).body).toBe('{"n": ""}');
  });

  it('refuses a malformed body template before rendering anything', () => {
    const err = thrown(() => buildWebhookRequest({ body: '{"a": "{{ eventData.tags[0 }}"}' }, payload));
    expect(err).toMatchObject({ where: 'body', position: 24 });
    expect(err.reason).toContain('unclosed "["');
  });
});

describe('validateTemplates (module save)', () => {
  it('accepts well-formed templates and an absent config', () => {
    expect(() => validateTemplates({})).not.toThrow();
    expect(() => validateTemplates({ headers: { 'X-A': '{{a}}' }, body: '{"x": {{ b[0] }}}' })).not.toThrow();
  });

  it('does not require JSON validity (data is not known yet)', () => {
    expect(() => validateTemplates({ body: 'not json {{a}}' })).not.toThrow();
  });

  it.each([
    [{ body: '{"a": {{a.}}}' }, 'body', 10],
    [{ headers: { 'X-Sig': '{{ a' } }, 'header "X-Sig"', 0],
    [{ headers: { 'X-Ok': '{{a}}', 'X-Bad': 'x{{}}' } }, 'header "X-Bad"', 3],
    [{ headers: { 'Bad Name': 'v' } }, 'header name "Bad Name"', 3],
  ])('names the template and position: %j', (cfg, where, position) => {
    const err = thrown(() => validateTemplates(cfg));
    expect(err.where).toBe(where);
    expect(err.position).toBe(position);
    expect(err.message).toContain(where);
  });
});
