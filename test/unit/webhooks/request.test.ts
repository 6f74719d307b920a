// The request one delivery sends: the stored body byte for byte, the service headers set last,
// and the templates applied for event webhooks.
import { describe, expect, it } from 'vitest';
import { prepareRequest } from '../../../src/worker/webhook/sender/request.js';
import type { Target } from '../../../src/worker/webhook/sender/request.js';
import { verify } from '../../../src/worker/webhook/sender/signature.js';
import type { DeliveryRow } from '../../../src/ports/queue.js';
import { sealerOf } from '../../helpers/credentials.js';

const sealer = sealerOf('unit-test-secret-unit-test');
const key = 'whk.unit-key';
const row = (o: Partial<DeliveryRow> = {}): DeliveryRow => ({
  id: 'd1',
  projectId: 1,
  moduleId: 'm',
  kind: 'event',
  eventId: 'e',
  eventType: 't',
  payload: '{"eventType":"t","eventData":{"n":1.0e0},"timestamp":"x","homeId":1}',
  status: 'delivering',
  attempts: [],
  roundAttempts: 0,
  nextAttemptTime: null,
  creationTime: 'x',
  updateTime: 'x',
  claimedBy: 'w',
  ...o,
});
const target = (o: Partial<Target> = {}): Target => ({ url: 'https://example.com/e?x=1', keySealed: sealer.seal(key), ...o });
const sent = (p: ReturnType<typeof prepareRequest>) => {
  if (!('send' in p)) throw new Error(`expected a request, got ${p.drop}`);
  return p.send;
};

describe('prepareRequest', () => {
  it('sends the stored payload byte for byte, signed over url + body', () => {
    const s = sent(prepareRequest(row(), target(), sealer));
    expect(s.body).toBe(row().payload);
    expect(s.url).toBe('https://example.com/e?x=1');
    expect(s.method).toBe('POST');
    expect(s.headers['Content-Type']).toBe('application/json');
    expect(verify(key, s.url, s.body, s.headers['X-Service-Signature'])).toBe(true);
    expect(s.headers['X-Mode-Signature']).toBe(s.headers['X-Service-Signature']);
    expect(s.headers['X-Service-Delivery']).toBe('d1');
  });

  it('removes case-variants of the service headers a template produced and sets them last', () => {
    const headers = { 'x-service-signature': 'f', 'X-MODE-SIGNATURE': 'f', 'x-Service-Delivery': 'f', 'User-Agent': 'mine' };
    const s = sent(prepareRequest(row(), target({ templates: { headers, body: null } }), sealer));
    const names = Object.keys(s.headers);
    expect(names.filter((n) => /signature|delivery/i.test(n))).toEqual(['X-Service-Signature', 'X-Mode-Signature', 'X-Service-Delivery']);
    expect(names.slice(-3)).toEqual(['X-Service-Signature', 'X-Mode-Signature', 'X-Service-Delivery']);
    expect(s.headers['User-Agent']).toBe('mine');
    expect(s.body).toBe(row().payload);
  });

  it('signs over the templated body when there is one', () => {
    const s = sent(prepareRequest(row(), target({ templates: { headers: { 'Content-Type': 'text/plain' }, body: 'n={{eventData.n}}' } }), sealer));
    expect(s.body).toBe('n=1');
    expect(verify(key, s.url, 'n=1', s.headers['X-Service-Signature'])).toBe(true);
  });

  it('drops, sending nothing, when a template yields invalid JSON', () => {
    const p = prepareRequest(row(), target({ templates: { headers: null, body: '{"a": {{eventType}}}' } }), sealer);
    expect(p).toMatchObject({ drop: expect.stringMatching(/^TEMPLATE_ERROR: body: body is not valid JSON/), templateError: true });
  });
});
