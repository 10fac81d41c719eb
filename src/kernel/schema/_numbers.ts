// Numeric helpers: multipleOf compared on decimal values (so 0.0075 is a multiple of 0.0001,
// which floating-point division gets wrong) and string length in Unicode code points.

/** The value as digits × 10^exponent, from its shortest round-trip decimal form. */
function decimalParts(value: number): { digits: bigint; exponent: number } {
  const [mantissa = '0', exponent = '0'] = Math.abs(value).toExponential().split('e');
  const [whole = '0', fraction = ''] = mantissa.split('.');
  return { digits: BigInt(whole + fraction), exponent: Number(exponent) - fraction.length };
}

/** True when `value` / `divisor` is an integer, computed on the decimal values. */
export function isMultipleOf(value: number, divisor: number): boolean {
  if (Number.isSafeInteger(value) && Number.isSafeInteger(divisor)) return value % divisor === 0;
  if (!Number.isFinite(value)) return false;
  const a = decimalParts(value);
  const b = decimalParts(divisor);
  const shift = a.exponent - b.exponent;
  return shift >= 0
    ? (a.digits * 10n ** BigInt(shift)) % b.digits === 0n
    : a.digits % (b.digits * 10n ** BigInt(-shift)) === 0n;
}

/**
 * isMultipleOf specialised for one divisor. For a divisor with k decimals (0.01 has 2) a value
 * is a multiple only if it has at most k decimals too, and then value × 10^k is a plain
 * integer: most checks need no BigInt.
 */
export function multipleOfTest(divisor: number): (value: number) => boolean {
  if (Number.isSafeInteger(divisor)) {
    return (value) => (Number.isSafeInteger(value) ? value % divisor === 0 : !Number.isInteger(value) ? false : isMultipleOf(value, divisor));
  }
  const { digits, exponent } = decimalParts(divisor);
  const decimals = -exponent;
  const scaledDivisor = Number(digits);
  if (decimals <= 0 || !Number.isSafeInteger(scaledDivisor)) return (value) => isMultipleOf(value, divisor);
  return (value) => {
    const text = String(value);
    if (text.includes('e')) return isMultipleOf(value, divisor);
    const dot = text.indexOf('.');
    const fraction = dot === -1 ? '' : text.slice(dot + 1);
    if (fraction.length > decimals) return false;
    const scaled = Number((dot === -1 ? text : text.slice(0, dot)) + fraction.padEnd(decimals, '0'));
    return Number.isSafeInteger(scaled) ? scaled % scaledDivisor === 0 : isMultipleOf(value, divisor);
  };
}

/** The length of `text` in code points: a surrogate pair counts once. */
export function codePointLength(text: string): number {
  let length = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length--;
        i++;
      }
    }
  }
  return length;
}
