// A small reader of the Markdown this project writes: blocks (paragraphs, table rows, fenced
// code), the inline code spans of each block, and for a table row the header of its table, so
// that the docs contract can ask "which spans sit in a column named command?".

export interface Block {
  kind: 'paragraph' | 'row' | 'fence';
  /** 1-based line where the block starts. */
  line: number;
  text: string;
  /** Inline code spans (paragraphs and rows); a fence has none. */
  spans: string[];
  /** For a table row: the header cells of its table, lower-case, and the spans of each cell. */
  header?: string[];
  cells?: string[][];
}

const SPAN = /`([^`\n]+)`/g;

function spansOf(text: string): string[] {
  return [...text.matchAll(SPAN)].map((m) => m[1]!.trim());
}

function cellsOf(line: string): string[] {
  // Pipes inside code spans are not cell separators.
  const cells: string[] = [];
  let current = '';
  let inCode = false;
  for (const char of line.trim().replace(/^\||\|$/g, '')) {
    if (char === '`') inCode = !inCode;
    if (char === '|' && !inCode) {
      cells.push(current.trim());
      current = '';
    } else current += char;
  }
  cells.push(current.trim());
  return cells;
}

/** The blocks of a Markdown document. */
export function scanMarkdown(text: string): Block[] {
  const lines = text.split(/\r?\n/);
  const blocks: Block[] = [];
  let paragraph: { line: number; lines: string[] } | undefined;
  let header: string[] | undefined;
  const flush = () => {
    if (paragraph) blocks.push({ kind: 'paragraph', line: paragraph.line, text: paragraph.lines.join('\n'), spans: spansOf(paragraph.lines.join('\n')) });
    paragraph = undefined;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*(```|~~~)/.test(line)) {
      flush();
      header = undefined;
      const start = i;
      const body: string[] = [];
      while (++i < lines.length && !/^\s*(```|~~~)/.test(lines[i]!)) body.push(lines[i]!);
      blocks.push({ kind: 'fence', line: start + 1, text: body.join('\n'), spans: [] });
      continue;
    }
    if (/^\s*\|/.test(line)) {
      flush();
      const next = lines[i + 1] ?? '';
      if (header === undefined && /^\s*\|?\s*:?-{3,}/.test(next)) {
        header = cellsOf(line).map((cell) => cell.replace(/`/g, '').toLowerCase());
        blocks.push({ kind: 'row', line: i + 1, text: line, spans: spansOf(line), header, cells: cellsOf(line).map(spansOf) });
        i++;
        continue;
      }
      blocks.push({ kind: 'row', line: i + 1, text: line, spans: spansOf(line), header: header ?? [], cells: cellsOf(line).map(spansOf) });
      continue;
    }
    header = undefined;
    if (line.trim() === '' || /^#{1,6}\s/.test(line)) {
      flush();
      if (line.trim() !== '') blocks.push({ kind: 'paragraph', line: i + 1, text: line, spans: spansOf(line) });
      continue;
    }
    if (paragraph === undefined) paragraph = { line: i + 1, lines: [] };
    paragraph.lines.push(line);
  }
  flush();
  return blocks;
}
