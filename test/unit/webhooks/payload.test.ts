// The exact webhook bodies: docs/webhooks.md#event-webhook (events) and §6.3 (commands), fields in table order and
// nothing else; `originProjectKeyID` spelled with ID.
import { describe, expect, it } from 'vitest';
import { commandWebhookBody, eventWebhookBody, eventWebhookJson } from '../../../src/domain/webhook/payload.js';
import { subscribes } from '../../../src/domain/webhook/event-targets.js';

describe('event webhook body (docs/webhooks.md#event-webhook)', () => {
  it('renames originProjectKeyId to originProjectKeyID and keeps only documented fields', () => {
    const body = eventWebhookBody({
      eventType: 't',
      eventData: { a: 1 },
      timestamp: '2030-01-01T00:00:00.000Z',
      homeId: 3,
      originProjectKeyId: 'k1',
      originProjectKeyName: 'admin',
      extra: 'leak',
    } as never);
    expect(JSON.stringify(body)).toBe(
      '{"eventType":"t","eventData":{"a":1},"timestamp":"2030-01-01T00:00:00.000Z","homeId":3,"originProjectKeyID":"k1","originProjectKeyName":"admin"}',
    );
  });

  it('carries the device origin fields of a device event', () => {
    const body = eventWebhookBody({
      eventType: 't',
      eventData: {},
      timestamp: 'x',
      homeId: 1,
      originDeviceId: 7,
      originDeviceClass: 'c',
      originDeviceIp: '10.0.0.1',
    });
    expect(Object.keys(body)).toEqual(['eventType', 'eventData', 'timestamp', 'homeId', 'originDeviceId', 'originDeviceClass', 'originDeviceIp']);
  });
});

describe('event webhook JSON from the event JSON the caller already has', () => {
  const device = {
    eventType: 't',
    eventData: { a: [1, 'ü'] },
    timestamp: '2030-01-01T00:00:00.000Z',
    homeId: 3,
    originDeviceId: 7,
    originDeviceClass: 'sensor',
    originDeviceIp: '10.0.0.2',
  };
  it("is the event's own text when the body has the event's keys in its order (a device's event)", () => {
    const json = JSON.stringify(device);
    const out = eventWebhookJson(device, json);
    expect(out).toBe(json);
    expect(out).toBe(JSON.stringify(eventWebhookBody(device)));
  });
  it('is serialised anew when the shapes differ: project-key fields (spelled ID in the body), another key order, an extra field', () => {
    const key = { eventType: 't', eventData: {}, timestamp: 'x', homeId: 1, originProjectKeyId: 'k1', originProjectKeyName: 'admin' };
    expect(eventWebhookJson(key, JSON.stringify(key))).toBe(JSON.stringify(eventWebhookBody(key)));
    expect(eventWebhookJson(key, JSON.stringify(key))).toContain('"originProjectKeyID":"k1"');
    const reordered = { eventType: 't', eventData: {}, timestamp: 'x', originDeviceId: 7, originDeviceClass: 'c', homeId: 1 };
    expect(eventWebhookJson(reordered, JSON.stringify(reordered))).toBe(JSON.stringify(eventWebhookBody(reordered)));
    const extra = { ...device, extra: 'leak' } as never;
    expect(eventWebhookJson(extra, JSON.stringify(extra))).not.toContain('leak');
  });
});

describe('command webhook body (docs/webhooks.md#command-webhook)', () => {
  it('names a user or a project key as origin', () => {
    expect(commandWebhookBody({ action: 'go', parameters: {}, timestamp: 't', homeId: 1, origin: { userId: 5 } })).toEqual({
      action: 'go',
      parameters: {},
      timestamp: 't',
      homeId: 1,
      originUserId: 5,
    });
    expect(
      Object.keys(commandWebhookBody({ action: 'go', parameters: {}, timestamp: 't', homeId: 1, origin: { projectKeyId: 'k', projectKeyName: 'n' } })),
    ).toEqual(['action', 'parameters', 'timestamp', 'homeId', 'originProjectKeyID', 'originProjectKeyName']);
  });
});

describe('subscriptions (docs/webhooks.md#subscriptions)', () => {
  it('`*` takes everything, otherwise exact types', () => {
    expect(subscribes(['*'], '_deviceConnected_')).toBe(true);
    expect(subscribes(['a', 'b'], 'b')).toBe(true);
    expect(subscribes(['a'], 'A')).toBe(false);
    expect(subscribes([], 'a')).toBe(false);
  });
});
