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
