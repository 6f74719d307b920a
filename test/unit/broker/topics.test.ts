// The MQTT topic ACL (docs/devices.md#mqtt), as pure functions.
import { describe, expect, it } from 'vitest';
import { publishKindOf, subscriptionAllowed } from '../../../broker/topics.js';

describe('publishKindOf', () => {
  it('names the five topics a device may publish to', () => {
    expect(publishKindOf(7, '/devices/7/event')).toEqual({ kind: 'event' });
    expect(publishKindOf(7, '/devices/7/commandAck')).toEqual({ kind: 'commandAck' });
    expect(publishKindOf(7, '/devices/7/kv')).toEqual({ kind: 'kv' });
    expect(publishKindOf(7, '/devices/7/data')).toEqual({ kind: 'data' });
    expect(publishKindOf(7, '/devices/7/bulkData/camera-1')).toEqual({ kind: 'bulkData', label: 'camera-1' });
  });

  it('refuses everything else', () => {
    for (const topic of [
      '/devices/8/event',
      '/devices/70/event',
      '/devices/07/event',
      'devices/7/event',
      '/devices/7/event/',
      '/devices/7/command',
      '/devices/8/commandAck',
      '/devices/7/commandAck/x',
      '/devices/7/commandack',
      '/devices/7/bulkData/',
      '/devices/7/bulkData/a/response',
      '/devices/7/bulkData/a/b',
      '/devices/7',
      '$SYS/x',
      '',
    ]) {
      expect(publishKindOf(7, topic), topic).toBeUndefined();
    }
  });
});

describe('subscriptionAllowed', () => {
  it('allows the device its command, kv and bulkData response topics', () => {
    for (const f of ['/devices/7/command', '/devices/7/kv', '/devices/7/bulkData/+/response', '/devices/7/bulkData/cam/response']) {
      expect(subscriptionAllowed(7, f), f).toBe(true);
    }
  });

  it('refuses foreign devices, wildcards that reach further, and its own outbound topics', () => {
    for (const f of [
      '/devices/8/command',
      '/devices/+/command',
      '/devices/7/#',
      '/devices/7/+',
      '#',
      '+/devices/7/command',
      '/devices/7/event',
      '/devices/7/data',
      '/devices/7/commandAck',
      '/devices/7/bulkData/#',
      '/devices/7/bulkData/+/+',
      '/devices/7/bulkData/#/response',
      '/devices/70/kv',
      '$SYS/#',
    ]) {
      expect(subscriptionAllowed(7, f), f).toBe(false);
    }
  });
});
