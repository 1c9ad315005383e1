/**
 * The resource.Quantity grammar of apimachinery: a signed decimal number followed by a binary-SI suffix
 * (Ki Mi Gi Ti Pi Ei), a decimal-SI suffix (n u m k M G T P E or none) or a decimal exponent (e3, E-2).
 */
const QUANTITY = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$/;

/** Whether a JSON value parses as a Kubernetes quantity (numbers are accepted, like `cpu: 1`). */
export function isQuantity(value: string | number): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  return QUANTITY.test(value);
}

const SUFFIX_SCALE: Readonly<Record<string, number>> = {
  '': 1, n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

/** The approximate numeric value of a valid quantity (for comparisons such as requests ≤ limits). */
export function quantityValue(value: string | number): number {
  if (typeof value === 'number') return value;
  const match = /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(.*)$/.exec(value);
  if (match === null) return Number.NaN;
  const [, number = '', suffix = ''] = match;
  // An exponent has digits: a bare `E` is exa and `Ei` exbi (read as exponents, 2E was 2 and 1Ei NaN).
  if (/^[eE][+-]?[0-9]+$/.test(suffix)) return Number(number) * 10 ** Number(suffix.slice(1));
  const scale = SUFFIX_SCALE[suffix];
  return scale === undefined ? Number.NaN : Number(number) * scale;
}

/** How a quantity was written, which its canonical form keeps (resource.Format). */
export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/**
 * A quantity as apimachinery holds it: an exact value, here in nano-units (ParseQuantity rounds finer values up,
 * away from zero, to nano), and the format it was written in.
 */
export interface Quantity {
  readonly nanos: bigint;
  readonly format: QuantityFormat;
}

const NANOS_PER_UNIT = 1_000_000_000n;
const NANOS_PER_MILLI = 1_000_000n;
const PARTS = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$/;
const DECIMAL_EXPONENTS: Readonly<Record<string, number>> = { '': 0, n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_EXPONENTS: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Ti: 40, Gi: 30, Pi: 50, Ei: 60 };
const DECIMAL_SUFFIXES: Readonly<Record<number, string>> = { [-9]: 'n', [-6]: 'u', [-3]: 'm', 0: '', 3: 'k', 6: 'M', 9: 'G', 12: 'T', 15: 'P', 18: 'E' };
const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

/** `n / d` rounded away from zero (d > 0). */
function divideAwayFromZero(n: bigint, d: bigint): bigint {
  const q = n / d;
  if (n % d === 0n) return q;
  return n < 0n ? q - 1n : q + 1n;
}

/** ParseQuantity: the exact value (rounded up to nano) and format of a quantity; undefined if it does not parse. */
export function parseQuantity(value: string | number): Quantity | undefined {
  const text = typeof value === 'number' ? String(value) : value;
  if (!isQuantity(text)) return undefined;
  const [, sign = '', whole = '', fraction = '', suffix = ''] = PARTS.exec(text) ?? [];
  const digits = BigInt(`${whole}${fraction}` || '0') * (sign === '-' ? -1n : 1n);
  const binary = BINARY_EXPONENTS[suffix];
  let nanos: bigint;
  let format: QuantityFormat;
  if (binary !== undefined) {
    format = 'BinarySI';
    nanos = divideAwayFromZero(digits * 2n ** BigInt(binary) * NANOS_PER_UNIT, 10n ** BigInt(fraction.length));
  } else {
    const decimal = DECIMAL_EXPONENTS[suffix];
    format = decimal === undefined ? 'DecimalExponent' : 'DecimalSI';
    const scale = (decimal ?? Number(suffix.slice(1))) - fraction.length + 9;
    nanos = scale >= 0 ? digits * 10n ** BigInt(scale) : divideAwayFromZero(digits, 10n ** BigInt(-scale));
  }
  return { nanos, format };
}

/** The quantity rounded up (away from zero) to milli-units, as the API defaults do to every resource list. */
export function roundUpToMilli(q: Quantity): Quantity {
  return { nanos: divideAwayFromZero(q.nanos, NANOS_PER_MILLI) * NANOS_PER_MILLI, format: q.format };
}

/** Quantity.Cmp: negative, zero or positive as `a` is less than, equal to or greater than `b`. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
}

/** Quantity.Add: the sum keeps the format of the first addend unless that one is zero. */
export function addQuantities(a: Quantity, b: Quantity): Quantity {
  return { nanos: a.nanos + b.nanos, format: a.nanos === 0n ? b.format : a.format };
}

/** Quantity.Value: the value in whole units, rounded up (away from zero). */
export function quantityUnits(q: Quantity): bigint {
  return divideAwayFromZero(q.nanos, NANOS_PER_UNIT);
}

/** Quantity.MilliValue: the value in milli-units, rounded up (away from zero). */
export function quantityMillis(q: Quantity): bigint {
  return divideAwayFromZero(q.nanos, NANOS_PER_MILLI);
}

/**
 * Quantity.String: the canonical form. Decimal quantities get the largest suffix (exponent a multiple of 3) that
 * keeps the number whole (`1000m` is `1`, `1500m` stays); binary ones get the largest power of 1024 that divides
 * them (`2048Ki` is `2Mi`), unless they are under 1024 or not whole, which are written as decimal (`0.5Ki` is
 * `512`); exponent ones keep an exponent (`1.5e3` is `1500`, `2e3` stays).
 */
export function formatQuantity(q: Quantity): string {
  if (q.nanos === 0n) return '0';
  const units = q.nanos / NANOS_PER_UNIT;
  if (q.format === 'BinarySI' && q.nanos % NANOS_PER_UNIT === 0n && (units >= 1024n || units <= -1024n)) {
    let mantissa = units;
    let power = 0;
    while (mantissa % 1024n === 0n && power < BINARY_SUFFIXES.length - 1) {
      mantissa /= 1024n;
      power++;
    }
    return `${mantissa}${BINARY_SUFFIXES[power] ?? ''}`;
  }
  let mantissa = q.nanos;
  let exponent = -9;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent++;
  }
  const remainder = ((exponent % 3) + 3) % 3;
  mantissa *= 10n ** BigInt(remainder);
  exponent -= remainder;
  const suffix = q.format === 'DecimalExponent' ? undefined : DECIMAL_SUFFIXES[exponent];
  if (suffix !== undefined) return `${mantissa}${suffix}`;
  return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
}
