// The exact webhook bodies: docs/webhooks.md#event-webhook (events) and §6.3 (commands), fields in table order and
// nothing else; `originProjectKeyID` spelled with ID.
import { describe, expect, it } from 'vitest';
import { commandWebhookBody, eventWebhookBody } from '../../../src/domain/webhook/payload.js';
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
