// Keywords whose check is their test plus a message: most validation keywords. The string and
// number forms also tell the node what they do (a LeafShape), so that a subschema made of such
// keywords becomes a ScalarLeaf.

import type { Compiled, KeywordShape, Test } from './_fused-test.ts';
import type { LeafShape } from './_scalar-leaf.ts';
import { report, type Check, type Describe } from './_run-context.ts';

export interface KeywordMessage {
  /** The keyword's schema location. */
  at: string;
  keyword: string;
  /** What was wrong with `data`, in the voice of report(). */
  describe: Describe;
}

/** A keyword decided by `test`; on failure its check reports `describe`'s message. */
export function keywordFromTest(test: Test, message: KeywordMessage & { shape?: KeywordShape }): Compiled {
  const { at, keyword, describe, shape } = message;
  const check: Check = (data, ctx) => {
    if (test(data)) return true;
    if (ctx.record) report(ctx, at, keyword, describe, data);
    return false;
  };
  return shape === undefined ? { check, test } : { check, test, shape };
}

/** A keyword that lets every non-string pass and decides strings with `holds`, which `shape` describes. */
export function stringKeyword(holds: (text: string) => boolean, message: KeywordMessage & { shape: LeafShape }): Compiled {
  return keywordFromTest((data) => typeof data !== 'string' || holds(data), message);
}

/** A keyword that lets every non-number pass and decides numbers with `holds`, which `shape` describes. */
export function numberKeyword(holds: (value: number) => boolean, message: KeywordMessage & { shape: LeafShape }): Compiled {
  return keywordFromTest((data) => typeof data !== 'number' || holds(data), message);
}
