// One map from reason to CONNACK code (docs/architecture.md#house-rules rule 4; docs/devices.md#mqtt).
import { describe, expect, it } from 'vitest';
import { connackCodeOf, connackError } from '../../../broker/mqtt/connack.js';
import { AppError, REASONS } from '../../../src/domain/errors.js';

describe('connackCodeOf', () => {
  it('has a code for every reason of the catalogue', () => {
    for (const r of REASONS) expect([2, 3, 4, 5], r).toContain(connackCodeOf[r]);
  });

  it('answers bad credentials with 4 and a device that is gone with 5 (docs/devices.md#mqtt)', () => {
    expect(connackCodeOf.AUTHORIZATION_REQUIRED).toBe(4);
    expect(connackCodeOf.INVALID_TOKEN).toBe(4);
    expect(connackCodeOf.DEVICE_NOT_FOUND).toBe(5);
    expect(connackCodeOf.LIMIT_EXCEEDED).toBe(3);
  });

  it('turns anything that is not ours into 3 (server unavailable), revealing nothing', () => {
    expect(connackError(new Error('db down')).returnCode).toBe(3);
    expect(connackError(new Error('db down')).message).toBe('SERVICE_UNAVAILABLE');
    expect(connackError(new AppError('DEVICE_NOT_FOUND', { deviceId: 3 })).returnCode).toBe(5);
  });
});
