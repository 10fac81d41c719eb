// Reading an HTTP answer whose size its server decides: the verifiers talk to targets they do not
// control (a telephony runtime, a Gitea), and an endless body must not fill memory until the timeout.

/** The body as UTF-8 text; rejects once it grows past `limit` bytes, and stops reading there. */
export async function readResponseBounded(response: Response, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.length;
    // Leaving the loop cancels the stream (and closes the connection).
    if (size > limit) break;
    chunks.push(Buffer.from(chunk));
  }
  if (size > limit) throw new Error(`answered more than ${limit} bytes: not read further`);
  return Buffer.concat(chunks).toString('utf8');
}
