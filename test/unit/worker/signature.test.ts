import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateWebhookKey, sign, verify } from '../../../src/worker/webhook/sender/signature.js';

// docs/webhooks.md#verifying-signatures written out independently: HMAC-SHA256 keyed with the key, over the URL immediately
// followed by the exact body, hex encoded.
const reference = (key: string, url: string, body: string) => createHmac('sha256', key).update(`${url}${body}`, 'utf8').digest('hex');

const key = 'whk.test-key-0123456789';
const url = 'https://hooks.example.com/mode?x=1';
const body = '{"eventType":"temp","eventData":{"c":21.5,"where":"salle à manger ☃"},"homeId":3}';

describe('sign (docs/webhooks.md#verifying-signatures)', () => {
  it('matches HMAC-SHA256(key, url + body) in lowercase hex', () => {
    const sig = sign(key, url, body);
    expect(sig).toBe(reference(key, url, body));
    expect(sig).toMatch(/^[0-9a-f]{64}$/);
  });

  it('matches for empty parts and non-ASCII keys', () => {
    expect(sign('', '', '')).toBe(reference('', '', ''));
    expect(sign('clé', url, '')).toBe(reference('clé', url, ''));
  });

  it('signs the url and body as one message (the boundary is not part of it)', () => {
    expect(sign(key, 'https://a/b', 'c')).toBe(sign(key, 'https://a/', 'bc'));
  });
});

describe('verify', () => {
  const sig = sign(key, url, body);

  it('accepts the matching signature, in either hex case', () => {
    expect(verify(key, url, body, sig)).toBe(true);
    expect(verify(key, url, body, sig.toUpperCase())).toBe(true);
  });

  it('fails on a one-byte change to the body, url, key or signature', () => {
    expect(verify(key, url, body.replace('21.5', '21.6'), sig)).toBe(false);
    expect(verify(key, url, `${body} `, sig)).toBe(false);
    expect(verify(key, url.replace('x=1', 'x=2'), body, sig)).toBe(false);
    expect(verify(`${key}!`, url, body, sig)).toBe(false);
    const flipped = (sig[0] === '0' ? '1' : '0') + sig.slice(1);
    expect(verify(key, url, body, flipped)).toBe(false);
  });

  it.each(['', 'abc', `${'0'.repeat(63)}`, `${sig}00`, sig.slice(0, -1), `${sig.slice(0, -1)}g`, `${sig.slice(0, -2)}é`, 'š'.repeat(64)])(
    'returns false without throwing for a malformed signature %j',
    (bad) => {
      expect(() => verify(key, url, body, bad)).not.toThrow();
      expect(verify(key, url, body, bad)).toBe(false);
    },
  );

  it('returns false for a non-string signature', () => {
    expect(verify(key, url, body, undefined as unknown as string)).toBe(false);
  });
});

describe('generateWebhookKey', () => {
  it('is whk. followed by 32 random bytes in base64url', () => {
    const k = generateWebhookKey();
    expect(k).toMatch(/^whk\.[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(k.slice(4), 'base64url')).toHaveLength(32);
  });

  it('is different every time', () => {
    const keys = new Set(Array.from({ length: 100 }, generateWebhookKey));
    expect(keys.size).toBe(100);
  });
});
