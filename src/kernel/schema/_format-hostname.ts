// The hostname format: RFC 1123 labels, and for "xn--" labels a valid IDNA2008 U-label inside:
// Punycode that decodes, NFC, no leading combining mark, every code point PVALID under the
// RFC 5892 §3 derivation, and the CONTEXTJ / CONTEXTO rules of RFC 5892 appendix A.
// Approximations are listed in SUPPORT.md (Bidi rule, Joining_Type, case folding).

import { decodePunycode } from './_punycode.ts';

const LDH_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const ASCII = /^[\x00-\x7f]*$/;

type IdnaProperty = 'PVALID' | 'CONTEXTJ' | 'CONTEXTO' | 'DISALLOWED';

// RFC 5892 §2.6.
const EXCEPTIONS = new Map<number, IdnaProperty>([
  ...[0xdf, 0x3c2, 0x6fd, 0x6fe, 0xf0b, 0x3007].map((cp) => [cp, 'PVALID'] as const),
  ...[0xb7, 0x375, 0x5f3, 0x5f4, 0x30fb].map((cp) => [cp, 'CONTEXTO'] as const),
  ...range(0x660, 0x669).map((cp) => [cp, 'CONTEXTO'] as const),
  ...range(0x6f0, 0x6f9).map((cp) => [cp, 'CONTEXTO'] as const),
  ...[0x640, 0x7fa, 0x302e, 0x302f, 0x3031, 0x3032, 0x3033, 0x3034, 0x3035, 0x303b].map((cp) => [cp, 'DISALLOWED'] as const),
]);

const UNASSIGNED = /^\p{Cn}$/u;
const LDH = /^[a-z0-9-]$/;
const IGNORABLE = /^[\p{Default_Ignorable_Code_Point}\p{White_Space}\p{Noncharacter_Code_Point}]$/u;
const LETTER_DIGIT = /^[\p{Ll}\p{Lu}\p{Lo}\p{Nd}\p{Lm}\p{Mn}\p{Mc}]$/u;
const COMBINING_MARK = /^\p{M}/u;
// IgnorableBlocks and OldHangulJamo of RFC 5892 §2.
const DISALLOWED_BLOCKS: readonly (readonly [number, number])[] = [
  [0x20d0, 0x20ff], [0x1d100, 0x1d1ff], [0x1d200, 0x1d24f], [0x1100, 0x11ff], [0xa960, 0xa97f], [0xd7b0, 0xd7ff],
];
const KANA_HAN = /^[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]$/u;
const TRANSPARENT = /^[\p{Mn}\p{Me}\p{Cf}]$/u;
// Joining_Type is not exposed to JavaScript; letters of the cursive-joining scripts stand in for L, D and R.
const JOINING = /^(?=\p{L})[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Nko}\p{Script=Mongolian}\p{Script=Mandaic}\p{Script=Manichaean}\p{Script=Psalter_Pahlavi}\p{Script=Adlam}\p{Script=Hanifi_Rohingya}\p{Script=Sogdian}\p{Script=Phags_Pa}]$/u;

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

function idnaProperty(cp: number): IdnaProperty {
  const exception = EXCEPTIONS.get(cp);
  if (exception !== undefined) return exception;
  const ch = String.fromCodePoint(cp);
  if (UNASSIGNED.test(ch)) return 'DISALLOWED';
  if (LDH.test(ch)) return 'PVALID';
  if (cp === 0x200c || cp === 0x200d) return 'CONTEXTJ';
  // Unstable: changed by NFKC case folding (toLowerCase stands in for case folding).
  if (ch.normalize('NFKC').toLowerCase().normalize('NFKC') !== ch) return 'DISALLOWED';
  if (IGNORABLE.test(ch)) return 'DISALLOWED';
  if (DISALLOWED_BLOCKS.some(([from, to]) => cp >= from && cp <= to)) return 'DISALLOWED';
  return LETTER_DIGIT.test(ch) ? 'PVALID' : 'DISALLOWED';
}

/**
 * Canonical_Combining_Class = Virama (9), read from the runtime's own Unicode data: NFD sorts
 * combining marks by class, so a mark that sorts after NUKTA (class 7) and before SHEVA (class
 * 10) has class 8 or 9, and only the two kana voicing marks have class 8.
 */
function isVirama(cp: number | undefined): boolean {
  if (cp === undefined || cp === 0x93c || cp === 0x5b0 || cp === 0x3099 || cp === 0x309a) return false;
  const ch = String.fromCodePoint(cp);
  return `a${ch}\u093c`.normalize('NFD') === `a\u093c${ch}` && `a\u05b0${ch}`.normalize('NFD') === `a${ch}\u05b0`;
}

function test(pattern: RegExp, cp: number | undefined): boolean {
  return cp !== undefined && pattern.test(String.fromCodePoint(cp));
}

/** RFC 5892 A.1: ZWNJ after a virama, or between joining letters (transparent marks skipped). */
function zwnjAllowed(cps: number[], i: number): boolean {
  if (isVirama(cps[i - 1])) return true;
  let before = i - 1;
  while (test(TRANSPARENT, cps[before])) before--;
  let after = i + 1;
  while (test(TRANSPARENT, cps[after])) after++;
  return test(JOINING, cps[before]) && test(JOINING, cps[after]);
}

function contextAllows(cps: number[], i: number): boolean {
  const cp = cps[i] as number;
  switch (cp) {
    case 0x200c: return zwnjAllowed(cps, i);
    case 0x200d: return isVirama(cps[i - 1]);
    case 0xb7: return cps[i - 1] === 0x6c && cps[i + 1] === 0x6c;
    case 0x375: return test(/^\p{Script=Greek}$/u, cps[i + 1]);
    case 0x5f3:
    case 0x5f4: return test(/^\p{Script=Hebrew}$/u, cps[i - 1]);
    case 0x30fb: return cps.some((other) => test(KANA_HAN, other));
    default:
      // Arabic-Indic digits (0660-0669) and Extended Arabic-Indic digits (06F0-06F9) do not mix.
      return cp <= 0x669 ? !cps.some((other) => other >= 0x6f0 && other <= 0x6f9) : !cps.some((other) => other >= 0x660 && other <= 0x669);
  }
}

function isULabel(label: string): boolean {
  if (label.normalize('NFC') !== label || label.slice(2, 4) === '--') return false;
  if (label.startsWith('-') || label.endsWith('-') || COMBINING_MARK.test(label)) return false;
  const cps = Array.from(label, (ch) => ch.codePointAt(0) as number);
  return cps.every((cp, i) => {
    const property = idnaProperty(cp);
    return property === 'PVALID' || (property !== 'DISALLOWED' && contextAllows(cps, i));
  });
}

function isLabel(label: string): boolean {
  if (!LDH_LABEL.test(label)) return false;
  if (!/^xn--/i.test(label)) return true;
  const decoded = decodePunycode(label.slice(4));
  return decoded !== undefined && decoded !== '' && !ASCII.test(decoded) && isULabel(decoded);
}

export function isHostname(text: string): boolean {
  return text.length > 0 && text.length <= 253 && text.split('.').every(isLabel);
}
