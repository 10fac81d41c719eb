// Rotation: a configured secret or token may hold several comma-separated values, and any of
// them is accepted. A value therefore never contains a comma.

/** Every value of every entry, trimmed; empty values are kept so checkSecret can name them. */
export function splitSecretValues(entries: string | readonly string[]): string[] {
  const list = typeof entries === 'string' ? [entries] : entries;
  return list.flatMap((entry) => entry.split(',').map((value) => value.trim()));
}

export function hasAnyValue(values: readonly string[]): boolean {
  return values.some((value) => value !== '');
}

/** The key of the schemes that use a secret as its UTF-8 string (stripe, github, house). */
export function decodeUtf8Secret(value: string): Buffer | undefined {
  return value === '' ? undefined : Buffer.from(value, 'utf8');
}
