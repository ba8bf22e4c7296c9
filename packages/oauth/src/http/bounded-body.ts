/**
 * @module Reading an HTTP body under a size cap, for a request the server takes and a document it
 * fetches alike: a declared length over the cap is refused unread, and the read stops as soon as
 * the bytes pass it, so no more than the cap is ever held.
 */

/** The body's bytes, at most `maxBytes`; past that, what `tooLarge` makes is thrown. */
export async function readBoundedBytes(
  message: Request | Response,
  maxBytes: number,
  tooLarge: () => Error,
): Promise<Buffer> {
  const declared = Number(message.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw tooLarge();
  const reader = message.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (reader !== undefined) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
