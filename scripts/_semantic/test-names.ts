// The names of the tests a test file declares: the first string argument of each test(), it()
// and describe() call. A template literal with ${...} becomes a pattern in which each
// substitution matches any text, so a registry may name one row of a table-driven test.

export interface DeclaredTests {
  names: Set<string>;
  patterns: RegExp[];
}

const CALL = /\b(?:test|it|describe)\(\s*(['"`])((?:\\[\s\S]|(?!\1)[\s\S])*?)\1/g;

function unescape(text: string): string {
  return text.replace(/\\([\s\S])/g, (_, char: string) => ({ n: '\n', t: '\t' })[char] ?? char);
}

/** Parses the test declarations of a file's text. */
export function declaredTests(text: string): DeclaredTests {
  const names = new Set<string>();
  const patterns: RegExp[] = [];
  for (const match of text.matchAll(CALL)) {
    const [, quote, body] = match as unknown as [string, string, string];
    if (quote === '`' && body.includes('${')) {
      const parts = body.split(/\$\{[^}]*\}/).map((part) => unescape(part).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      patterns.push(new RegExp(`^${parts.join('[\\s\\S]+')}$`));
    } else names.add(unescape(body));
  }
  return { names, patterns };
}

/** True when `name` is a declared test (or an instance of a templated one). */
export function declares(tests: DeclaredTests, name: string): boolean {
  return tests.names.has(name) || tests.patterns.some((pattern) => pattern.test(name));
}
