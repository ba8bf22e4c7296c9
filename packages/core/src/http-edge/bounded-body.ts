/**
 * @module The one reader of an HTTP body in the product, for a request a server takes and an
 * answer it fetches alike (ADR 0056). A declared length over the cap is refused unread; a body
 * without one (chunked), or one that lies, is counted as it arrives and refused at the first chunk
 * past the cap, so no more than the cap is ever held. Each surface turns the outcome into its own
 * answer (a 413, an OAuth error, `response_too_large`).
 */

/** Bytes several bodies share at once (one T3 environment's answers in flight, ADR 0020). */
export interface ByteHold {
  /** Takes `bytes` if they fit; false (nothing taken) if they would pass the hold's budget. */
  take(bytes: number): boolean;
  release(bytes: number): void;
}

export interface BoundedReadOptions {
  readonly maxBytes: number;
  /** A budget each chunk must also fit, released when the read ends. */
  readonly hold?: ByteHold;
}

/** The reading side of a body's byte stream (a web `ReadableStream`'s reader is one). */
export interface ByteStreamReader {
  read(): Promise<{ done: false; value: Uint8Array } | { done: true; value?: Uint8Array | undefined }>;
  cancel(): Promise<void>;
}

/** What is read of a message with a body: a `Request` or a `Response` is one. */
export interface BodyMessage {
  readonly headers: { get(name: string): string | null };
  readonly body: { getReader(): ByteStreamReader; cancel(): Promise<void> } | null;
}

/** One step of a body's bytes, from either reader. */
type NextChunk = { done?: false; value: Uint8Array } | { done: true; value?: unknown };

export type BoundedRead =
  | { readonly kind: "ok"; readonly bytes: Buffer }
  /** Over `maxBytes`: declared (refused unread) or counted (refused at the chunk that passed it). */
  | { readonly kind: "too_large"; readonly declared: boolean }
  /** A chunk did not fit the hold. */
  | { readonly kind: "over_hold" }
  /** The stream failed: the client went away, a timeout cut it, the connection reset. */
  | { readonly kind: "aborted"; readonly error: unknown };

/** Reads the whole body of `message` under the cap; never throws for the body's sake. */
export async function readBoundedBody(
  message: BodyMessage,
  options: BoundedReadOptions,
): Promise<BoundedRead> {
  if (declaredLength(message.headers.get("content-length")) > options.maxBytes) {
    await message.body?.cancel().catch(() => undefined);
    return { kind: "too_large", declared: true };
  }
  if (message.body === null) return { kind: "ok", bytes: Buffer.alloc(0) };
  const reader = message.body.getReader();
  return collect(
    () => reader.read(),
    () => reader.cancel(),
    options,
  );
}

/** What a Node server hands a handler: the request's headers and its body as a stream of bytes. */
export interface NodeRequestBody extends AsyncIterable<Uint8Array> {
  readonly headers: { readonly "content-length"?: string | undefined };
}

/**
 * The same read of a request a Node server took (`IncomingMessage`), straight from its stream:
 * no web `Request` is built around it (ADR 0066). Same cap, same outcomes; stopping early
 * destroys the stream, as cancelling a web stream of it does.
 */
export async function readBoundedRequest(
  incoming: NodeRequestBody,
  options: BoundedReadOptions,
): Promise<BoundedRead> {
  if (declaredLength(incoming.headers["content-length"] ?? null) > options.maxBytes) {
    return { kind: "too_large", declared: true };
  }
  const chunks = incoming[Symbol.asyncIterator]();
  return collect(
    () => chunks.next(),
    async () => {
      await chunks.return?.();
    },
    options,
  );
}

/**
 * The one loop both readers share: takes chunks while they fit the cap (and the hold), and stops
 * the source at the first that does not, so no more than the cap is ever held.
 */
async function collect(
  next: () => Promise<NextChunk>,
  cancel: () => Promise<unknown>,
  options: BoundedReadOptions,
): Promise<BoundedRead> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const stop = async (outcome: BoundedRead) => {
    chunks.length = 0;
    await cancel().catch(() => undefined);
    return outcome;
  };
  try {
    for (;;) {
      const { done, value } = await next();
      if (done) break;
      if (size + value.byteLength > options.maxBytes) {
        return await stop({ kind: "too_large", declared: false });
      }
      if (options.hold !== undefined && !options.hold.take(value.byteLength)) {
        return await stop({ kind: "over_hold" });
      }
      size += value.byteLength;
      chunks.push(value);
    }
    return { kind: "ok", bytes: Buffer.concat(chunks, size) };
  } catch (error) {
    chunks.length = 0;
    return { kind: "aborted", error };
  } finally {
    options.hold?.release(size);
  }
}

/**
 * The `Content-Length` a message declares, as a number to compare with a cap (NaN when absent or
 * not a number: such a body is counted as it arrives, which bounds it just the same).
 */
function declaredLength(declared: string | null): number {
  return declared === null || !/^\d+$/.test(declared.trim()) ? Number.NaN : Number(declared);
}

/** The bytes as UTF-8 text, or undefined when they are not UTF-8 (no replacement characters). */
export function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

export type JsonBody =
  | { readonly kind: "json"; readonly value: unknown; readonly text: string }
  | { readonly kind: "not_utf8" }
  | { readonly kind: "not_json" };

/** A body's bytes as JSON (strict UTF-8, then `JSON.parse`); the one parse of a request body. */
export function parseJsonBytes(bytes: Uint8Array): JsonBody {
  const text = utf8Text(bytes);
  if (text === undefined) return { kind: "not_utf8" };
  try {
    return { kind: "json", value: JSON.parse(text) as unknown, text };
  } catch {
    return { kind: "not_json" };
  }
}
