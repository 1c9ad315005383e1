import { describe, expect, it } from 'vitest';
import { isQuantity, quantityValue } from './quantity.js';

describe(isQuantity.name, () => {
  it.each(['1', '0.5', '.5', '1.', '+1', '-1', '100m', '1Ki', '128Mi', '1Gi', '2Ti', '1Pi', '1Ei', '1k', '1M', '1G', '1T', '1P', '1E', '5n', '5u', '1e3', '1E-2', '0'])(
    'accepts %s',
    (value) => {
      expect(isQuantity(value)).toBe(true);
    },
  );

  it.each(['', '1 Gi', '1GB', '1.2.3', 'one', '1Kib', 'm', '1e', '--1'])('rejects %j', (value) => {
    expect(isQuantity(value)).toBe(false);
  });

  it('accepts finite numbers', () => {
    expect(isQuantity(2)).toBe(true);
    expect(isQuantity(Number.POSITIVE_INFINITY)).toBe(false);
  });
});

describe(quantityValue.name, () => {
  it('scales decimal, binary and exponent suffixes', () => {
    expect(quantityValue('500m')).toBe(0.5);
    expect(quantityValue('1Gi')).toBe(2 ** 30);
    expect(quantityValue('1G')).toBe(1e9);
    // Binary suffixes are powers of 1024, not of 1000.
    expect(quantityValue('1Ki')).toBe(1024);
    expect(quantityValue('3Mi')).toBe(3 * 2 ** 20);
    expect(quantityValue('1Ti')).toBe(2 ** 40);
    expect(quantityValue('1Pi')).toBe(2 ** 50);
    // E and Ei are suffixes, not exponents: an exponent has digits.
    expect(quantityValue('1Ei')).toBe(2 ** 60);
    expect(quantityValue('2E')).toBe(2e18);
    expect(quantityValue('2e3')).toBe(2000);
    expect(quantityValue('1E-2')).toBe(0.01);
    expect(quantityValue('-1k')).toBe(-1000);
    expect(quantityValue(3)).toBe(3);
  });
});
