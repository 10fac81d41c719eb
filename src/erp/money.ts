// Exact money: amounts are integer minor units (bigint) inside, decimal strings outside. Input is
// a decimal string ("1234.50") or a JSON number whose text has no more decimals than the currency
// allows, or, from payment providers, an integer count of minor units. Binary floating point
// never carries an amount through arithmetic.

import { frappeThrow } from './frappe/envelope.ts';

/** ISO 4217 currencies whose minor unit is not 2 digits (the rest have 2). */
const EXPONENTS: Readonly<Record<string, number>> = {
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, VND: 0, VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
};

/** Largest amount accepted, in minor units: 10^15, so every amount fits a JSON number exactly too. */
const MAX_MINOR = 10n ** 15n;

export function currencyExponent(currency: string): number {
  return EXPONENTS[currency] ?? 2;
}

/** An upper-case ISO 4217 code, or a ValidationError naming the field. */
export function parseCurrency(value: unknown, field: string): string {
  if (typeof value !== 'string' || !/^[A-Za-z]{3}$/.test(value)) frappeThrow(`Field "${field}" must be a three-letter ISO 4217 currency code, got ${JSON.stringify(value)}`);
  return value.toUpperCase();
}

/** A decimal amount in `currency` as minor units; `field` names it in the error. */
export function parseDecimalAmount(value: unknown, currency: string, field: string): bigint {
  let text: string;
  if (typeof value === 'string') text = value.trim();
  else if (typeof value === 'number' && Number.isFinite(value)) {
    // JSON.parse kept the shortest text that reads back as this number: the digits the sender wrote.
    text = String(value);
    if (/e/i.test(text)) frappeThrow(`Field "${field}" is out of range: send it as a decimal string`);
  } else frappeThrow(`Field "${field}" must be a decimal string such as "12.50", got ${JSON.stringify(value) ?? 'nothing'}`);
  const match = /^(-?)(\d{1,16})(?:\.(\d+))?$/.exec(text);
  if (!match) frappeThrow(`Field "${field}" must be a decimal amount such as "12.50", got ${JSON.stringify(value)}`);
  const exponent = currencyExponent(currency);
  const fraction = match[3] ?? '';
  if (fraction.length > exponent) frappeThrow(`Field "${field}" has ${fraction.length} decimals; ${currency} allows ${exponent}`);
  const minor = BigInt(`${match[2]}${fraction.padEnd(exponent, '0')}`) * (match[1] === '-' ? -1n : 1n);
  if (minor > MAX_MINOR || minor < -MAX_MINOR) frappeThrow(tooLarge(field));
  return minor;
}

/**
 * A provider's integer count of minor units (Stripe's `amount`). `alsoDecimal`: the field takes a
 * decimal string too (payment_b), and the error says so.
 */
export function parseMinorUnits(value: unknown, field: string, options: { alsoDecimal?: boolean } = {}): bigint {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) frappeThrow(`Field "${field}" must be a whole number of minor units${options.alsoDecimal ? ' or a decimal string such as "12.50"' : ''}, got ${JSON.stringify(value) ?? 'nothing'}`);
  const minor = BigInt(value);
  if (minor > MAX_MINOR || minor < -MAX_MINOR) frappeThrow(tooLarge(field));
  return minor;
}

function tooLarge(field: string): string {
  return `Field "${field}" is larger than this service accepts: at most 10^15 minor units`;
}

/** Minor units as the decimal string of `currency`: 123456n, "USD" -> "1234.56". */
export function formatAmount(minor: bigint, currency: string): string {
  const exponent = currencyExponent(currency);
  const sign = minor < 0n ? '-' : '';
  const digits = (minor < 0n ? -minor : minor).toString().padStart(exponent + 1, '0');
  return exponent === 0 ? `${sign}${digits}` : `${sign}${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

/** Sums minor units exactly. */
export function sumAmounts(values: readonly bigint[]): bigint {
  return values.reduce((total, value) => total + value, 0n);
}
