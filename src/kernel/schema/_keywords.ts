// Every keyword the compiler acts on, by name. Keywords not listed here (title, default,
// examples, $comment, contentMediaType, unknown ones) are annotations and cost nothing.

import type { KeywordDef } from './_compile.ts';
import { APPLICATOR_KEYWORDS } from './_keywords-applicator.ts';
import { ARRAY_KEYWORDS } from './_keywords-array.ts';
import { CORE_KEYWORDS } from './_keywords-core.ts';
import { FORMAT_KEYWORDS } from './_keywords-format.ts';
import { NUMBER_STRING_KEYWORDS } from './_keywords-number-string.ts';
import { OBJECT_KEYWORDS } from './_keywords-object.ts';
import { TYPE_KEYWORDS } from './_keywords-type.ts';

export const KEYWORDS: ReadonlyMap<string, KeywordDef> = new Map(
  Object.entries({
    ...CORE_KEYWORDS,
    ...APPLICATOR_KEYWORDS,
    ...OBJECT_KEYWORDS,
    ...ARRAY_KEYWORDS,
    ...TYPE_KEYWORDS,
    ...NUMBER_STRING_KEYWORDS,
    ...FORMAT_KEYWORDS,
  }),
);
