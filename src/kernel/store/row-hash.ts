// The hash that chains evidence rows. Definition, for any verifier in any language:
//
//   sha256 = lowercase hex SHA-256 of the UTF-8 bytes of
//            JCS({ "seq": <integer>, "recorded_at": <ISO 8601 UTC text>, "prev_sha256": <hex>,
//                  "payload": <the payload as a JSON value>, <each declared column>: <its value> })
//
// JCS is RFC 8785 (canonical-json.ts). The payload enters as a JSON value, not as its text; the
// stored payload text must itself be the JCS form of that value, so changing any stored column,
// even a byte of whitespace in the payload, breaks verification. The first row of a table has
// seq 1 and prev_sha256 GENESIS_SHA256; each later row has seq + 1 and its predecessor's sha256.

import { hash } from 'node:crypto';
import { canonicalJson, canonicalObjectOf } from './canonical-json.ts';

/** prev_sha256 of a table's first row: 64 zeros. */
export const GENESIS_SHA256 = '0'.repeat(64);

/** What a row's hash covers: every stored column except sha256 itself. */
export interface HashedFields {
  seq: number;
  recorded_at: string;
  prev_sha256: string;
  payload: unknown;
  [column: string]: unknown;
}

/** The sha256 column of a row with these fields. */
export function rowHash(fields: HashedFields): string {
  return hash('sha256', canonicalJson(fields), 'hex');
}

/**
 * rowHash() for a row whose fields are already canonical JSON texts (the payload's stored text,
 * each column's text): the same hash without serializing the payload a second time.
 */
export function rowHashOfTexts(texts: Readonly<Record<keyof HashedFields, string>>): string {
  // crypto.hash(): one call, no Hash object; every evidence append pays for this.
  return hash('sha256', canonicalObjectOf(texts), 'hex');
}

/** The texts a table's row hash is made of: each declared column's canonical JSON (in declared order) and the chain fields. */
export interface RowTexts {
  columnTexts: readonly string[];
  seq: number;
  recorded_at: string;
  prev_sha256: string;
  payloadText: string;
}

export type RowHasher = (texts: RowTexts) => string;

/**
 * rowHashOfTexts() for the rows of one table, whose member names are known in advance: the
 * names are sorted and quoted once, and each row's canonical text is only joined. Every evidence
 * append pays for this, and sorting and quoting the same names each time cost more than the hash.
 */
export function rowHasher(columns: readonly string[]): RowHasher {
  // A slot says where a member's text comes from: a column's index, or one of the chain fields.
  const SEQ = -1;
  const RECORDED_AT = -2;
  const PREV = -3;
  const PAYLOAD = -4;
  const members = new Map<string, number>(columns.map((name, index) => [name, index]));
  members.set('seq', SEQ).set('recorded_at', RECORDED_AT).set('prev_sha256', PREV).set('payload', PAYLOAD);
  const names = [...members.keys()].sort();
  const slots = names.map((name) => members.get(name)!);
  // Each member's text is preceded by its key, as canonicalObjectOf() writes it.
  const prefixes = names.map((name, index) => `${index === 0 ? '{' : ','}${canonicalJson(name)}:`);
  return (texts) => {
    let text = '';
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]!;
      const member =
        slot >= 0 ? texts.columnTexts[slot]! : slot === SEQ ? String(texts.seq) : slot === RECORDED_AT ? JSON.stringify(texts.recorded_at) : slot === PREV ? JSON.stringify(texts.prev_sha256) : texts.payloadText;
      text += prefixes[i]! + member;
    }
    return hash('sha256', `${text}}`, 'hex');
  };
}
