import { describe, expect, it } from 'vitest';
import {
  addQuantities, compareQuantities, formatQuantity, isQuantity, parseQuantity, quantityMillis, quantityUnits, quantityValue, roundUpToMilli,
} from './quantity.js';

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

describe(parseQuantity.name, () => {
  it('holds the exact value in nano-units, rounding finer values up, and the format it was written in', () => {
    expect(parseQuantity('1500m')).toEqual({ nanos: 1_500_000_000n, format: 'DecimalSI' });
    expect(parseQuantity('1.5Gi')).toEqual({ nanos: 1_610_612_736_000_000_000n, format: 'BinarySI' });
    expect(parseQuantity('2e3')).toEqual({ nanos: 2_000_000_000_000n, format: 'DecimalExponent' });
    expect(parseQuantity('0.1n')).toEqual({ nanos: 1n, format: 'DecimalSI' });
    expect(parseQuantity('-0.1n')).toEqual({ nanos: -1n, format: 'DecimalSI' });
    expect(parseQuantity(2)).toEqual({ nanos: 2_000_000_000n, format: 'DecimalSI' });
    expect(parseQuantity('1 Gi')).toBeUndefined();
  });
});

describe(formatQuantity.name, () => {
  const canonical = (value: string): string => {
    const q = parseQuantity(value);
    if (q === undefined) throw new Error(`not a quantity: ${value}`);
    return formatQuantity(q);
  };

  it('writes the canonical form of Quantity.String', () => {
    expect(['0', '1000m', '1500m', '0.5', '2000', '1024', '100M', '1.5m', '-1'].map(canonical))
      .toEqual(['0', '1', '1500m', '500m', '2k', '1024', '100M', '1500u', '-1']);
    // Binary: the largest power of 1024 that divides the value, decimal under 1024 or when not whole.
    expect(['1Gi', '1.5Gi', '2048Ki', '0.5Ki', '1Ki', '1536'].map(canonical)).toEqual(['1Gi', '1536Mi', '2Mi', '512', '1Ki', '1536']);
    // Exponent: a multiple of 3, left out at 0.
    expect(['1e3', '1.5e3', '1E-2'].map(canonical)).toEqual(['1e3', '1500', '10e-3']);
  });

  it('keeps the first non-zero addend\'s format in a sum, and rounds up to milli-units as the API defaults do', () => {
    const sum = addQuantities(addQuantities({ nanos: 0n, format: 'DecimalSI' }, parseQuantity('768Mi') ?? fail()), parseQuantity('512Mi') ?? fail());
    expect(formatQuantity(sum)).toBe('1280Mi');
    expect(formatQuantity(roundUpToMilli(parseQuantity('1.5m') ?? fail()))).toBe('2m');
    expect(compareQuantities(parseQuantity('1') ?? fail(), parseQuantity('1000m') ?? fail())).toBe(0);
    expect(compareQuantities(parseQuantity('1Ki') ?? fail(), parseQuantity('1k') ?? fail())).toBe(1);
    expect([quantityUnits(parseQuantity('1.2') ?? fail()), quantityMillis(parseQuantity('1.0001') ?? fail())]).toEqual([2n, 1001n]);
  });
});

function fail(): never {
  throw new Error('not a quantity');
}
