// The one id parser (src/domain/id.ts) of the HTTP routes and the broker: ids of projects, homes,
// users and devices are positive integers (docs/api.md#conventions) that fit an SQL `integer`.
import { describe, expect, it } from 'vitest';
import { ID_PATTERN, MAX_ID, deviceIdOf, idOrNotFound, parseId } from '../../../src/domain/id.js';
import { isAppError } from '../../../src/domain/errors.js';

const refusal = (f: () => unknown) => {
  try {
    return { value: f() };
  } catch (e) {
    return isAppError(e) ? { reason: e.reason, data: e.data } : { error: String(e) };
  }
};

describe('parseId', () => {
  it('takes every decimal from 1 to MAX_ID', () => {
    for (const [raw, id] of [
      ['1', 1],
      ['7', 7],
      ['10', 10],
      ['999999999', 999_999_999],
      ['1000000000', 1_000_000_000],
      [String(MAX_ID), MAX_ID],
    ] as const) {
      expect(parseId(raw), raw).toBe(id);
      expect(ID_PATTERN.test(raw), raw).toBe(true);
    }
    expect(MAX_ID).toBe(2 ** 31 - 1);
  });

  it('refuses zero, signs, leading zeros, fractions, exponents, spaces and other text', () => {
    for (const raw of ['', '0', '00', '01', '007', '-1', '+1', '1.5', '1.0', '1e3', '0x1f', ' 1', '1 ', '1\n', 'abc', '１', '1/2', 'Infinity', 'NaN']) {
      expect(parseId(raw), JSON.stringify(raw)).toBeUndefined();
    }
    expect(parseId(undefined)).toBeUndefined();
  });

  it('refuses numbers past an SQL integer: the 10-digit ones above MAX_ID by value, longer ones by the pattern', () => {
    for (const raw of [String(MAX_ID + 1), '9999999999', '99999999999', '9999999999999999', '12345678901234567890']) {
      expect(parseId(raw), raw).toBeUndefined();
    }
    expect(ID_PATTERN.test(String(MAX_ID + 1))).toBe(true);
    expect(ID_PATTERN.test('12345678901')).toBe(false);
  });
});

describe('idOrNotFound', () => {
  it('answers a text that is not an id as the not-found of its kind, naming the text', () => {
    expect(refusal(() => idOrNotFound('42', 'HOME_NOT_FOUND', 'homeId'))).toEqual({ value: 42 });
    expect(refusal(() => idOrNotFound('abc', 'HOME_NOT_FOUND', 'homeId'))).toEqual({ reason: 'HOME_NOT_FOUND', data: { homeId: 'abc' } });
    expect(refusal(() => idOrNotFound(undefined, 'USER_NOT_FOUND', 'userId'))).toEqual({ reason: 'USER_NOT_FOUND', data: { userId: undefined } });
    expect(refusal(() => deviceIdOf('99999999999'))).toEqual({ reason: 'DEVICE_NOT_FOUND', data: { deviceId: '99999999999' } });
    expect(refusal(() => deviceIdOf(String(MAX_ID)))).toEqual({ value: MAX_ID });
  });
});
