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

/** Below this, value × 10^k is within ±1/2 of the integer it stands for (see multipleOfTest). */
const EXACT_SCALED_LIMIT = 2 ** 49;

/**
 * isMultipleOf specialised for one divisor. For a divisor with k decimals (0.01 has 2) a value
 * is a multiple only if its shortest decimal form has at most k decimals too, that is when
 * r = round(value × 10^k) gives back value as r / 10^k (division rounds correctly), and then r
 * must be a multiple of divisor × 10^k. Below 2^49 the rounding error of value × 10^k is far
 * under 1/2, so no other r can stand for value; larger values take the exact decimal path.
 */
export function multipleOfTest(divisor: number): (value: number) => boolean {
  if (Number.isSafeInteger(divisor)) {
    return (value) => (Number.isSafeInteger(value) ? value % divisor === 0 : !Number.isInteger(value) ? false : isMultipleOf(value, divisor));
  }
  const { digits, exponent } = decimalParts(divisor);
  const decimals = -exponent;
  const scaledDivisor = Number(digits);
  // 10^22 is the largest power of ten a double holds exactly.
  if (decimals <= 0 || decimals > 22 || !Number.isSafeInteger(scaledDivisor)) return (value) => isMultipleOf(value, divisor);
  const scale = 10 ** decimals;
  return (value) => {
    const scaled = Math.round(value * scale);
    if (Math.abs(scaled) >= EXACT_SCALED_LIMIT) return isMultipleOf(value, divisor);
    return scaled / scale === value && scaled % scaledDivisor === 0;
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
