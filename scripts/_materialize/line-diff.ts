// A small unified diff of two texts, for the materializer's preview: what the apply would
// change, line by line, with a little context. Longest-common-subsequence on lines; the files
// it compares are small configuration files.

const CONTEXT = 2;
/** Above this many line pairs the diff shows the whole old text removed and the new one added. */
const MAX_CELLS = 4_000_000;

/** Unified-diff lines (`@@` hunk headers, ` `, `-`, `+`); empty when the texts are equal. */
export function lineDiff(before: string, after: string): string[] {
  if (before === after) return [];
  const a = splitLines(before);
  const b = splitLines(after);
  const ops = a.length * b.length > MAX_CELLS ? [...a.map((l) => `-${l}`), ...b.map((l) => `+${l}`)] : editScript(a, b);
  return hunks(ops);
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

function editScript(a: string[], b: string[]): string[] {
  // lengths[i][j]: LCS length of a[i..] and b[j..].
  const lengths = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      lengths[i]![j] = a[i] === b[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
    }
  }
  const ops: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push(` ${a[i]}`);
      i += 1;
      j += 1;
    } else if (i < a.length && (j === b.length || lengths[i + 1]![j]! >= lengths[i]![j + 1]!)) {
      ops.push(`-${a[i]}`);
      i += 1;
    } else {
      ops.push(`+${b[j]}`);
      j += 1;
    }
  }
  return ops;
}

/** Groups changes with CONTEXT lines around them under `@@ -a,n +b,m @@` headers. */
function hunks(ops: string[]): string[] {
  const out: string[] = [];
  const changed = ops.map((op) => op[0] !== ' ');
  let index = 0;
  const position = { a: 1, b: 1 };
  const advance = (op: string) => {
    if (op[0] !== '+') position.a += 1;
    if (op[0] !== '-') position.b += 1;
  };
  while (index < ops.length) {
    const next = changed.indexOf(true, index);
    if (next < 0) break;
    let start = Math.max(index, next - CONTEXT);
    for (; index < start; index += 1) advance(ops[index]!);
    let end = next;
    // Extend while another change lies within 2 * CONTEXT lines.
    for (let k = next; k < ops.length && k <= end + 2 * CONTEXT; k += 1) if (changed[k]) end = k;
    end = Math.min(ops.length - 1, end + CONTEXT);
    const body = ops.slice(start, end + 1);
    const aCount = body.filter((op) => op[0] !== '+').length;
    const bCount = body.filter((op) => op[0] !== '-').length;
    out.push(`@@ -${aCount === 0 ? position.a - 1 : position.a},${aCount} +${bCount === 0 ? position.b - 1 : position.b},${bCount} @@`, ...body);
    for (; start <= end; start += 1) advance(ops[start]!);
    index = end + 1;
  }
  return out;
}
