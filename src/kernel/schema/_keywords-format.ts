// The format keyword: an annotation by default; an assertion with `formats: "assert"` or when
// the dialect's metaschema declares the format-assertion vocabulary.

import { compileError } from './_compile-error.ts';
import type { KeywordDef, SchemaContext } from './_compile.ts';
import type { Compiled } from './_fused-test.ts';
import { stringKeyword } from './_keyword-from-test.ts';
import { FORMATS } from './_formats.ts';
import { jsonType, preview } from './_run-context.ts';

function compileFormat(value: unknown, cx: SchemaContext, at: string): Compiled | undefined {
  const { vocabulary } = cx;
  if (!vocabulary.has('format-annotation') && !vocabulary.has('format-assertion')) return undefined;
  if (typeof value !== 'string') throw compileError(at, `must be a string, got ${jsonType(value)}`);
  if (cx.state.formats !== 'assert' && !vocabulary.has('format-assertion')) return undefined;
  const isValid = FORMATS.get(value);
  // Asserting a format we cannot check would pass everything: refuse instead.
  if (isValid === undefined) throw compileError(at, `format "${value}" cannot be asserted: supported formats are ${[...FORMATS.keys()].join(', ')}`);
  const describe = (subject: string, data: unknown): string => `${subject} must be a valid ${value}, got ${preview(data)}`;
  return stringKeyword(isValid, { at, keyword: 'format', describe, shape: { kind: 'format', holds: isValid } });
}

export const FORMAT_KEYWORDS: Record<string, KeywordDef> = {
  // Listed under core so that it runs under either format vocabulary; compileFormat checks which.
  format: { vocabulary: 'core', compile: compileFormat },
};
