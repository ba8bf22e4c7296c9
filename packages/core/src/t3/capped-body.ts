import { ConnectorError } from "../errors.js";

/**
 * Largest T3 HTTP answer the connector reads (descriptor, shell, thread, history, projects). The
 * biggest legitimate answer is a full thread snapshot of an older server, a few MiB for a long
 * thread; 32 MiB leaves room for that and bounds what one hostile environment can make the
 * process hold per request (ADR 0020).
 */
export const MAX_T3_ANSWER_BYTES = 32 * 1024 * 1024;

/**
 * Reads `response`'s body as UTF-8, chunk by chunk, and gives up as soon as it passes
 * `maxBytes` (or its declared length does): the process never holds more than `maxBytes` of it.
 * Returns undefined when the body was too large; a stream error (abort, reset) is thrown as is.
 */
export async function readCappedText(response: Response, maxBytes: number): Promise<string | undefined> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      chunks.length = 0;
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks, size));
}

/** `response_too_large`, naming the environment (when known), the route and the limit. */
export function answerTooLarge(
  environment: string | undefined,
  route: string,
  maxBytes: number,
): ConnectorError {
  const where = environment === undefined ? "" : `environment "${environment}": `;
  return new ConnectorError(
    "response_too_large",
    `${where}${route}: T3 answered more than ${maxBytes} bytes (${Math.round(maxBytes / 1024 / 1024)} MiB), the most the connector reads; the answer was refused unread`,
    { details: { ...(environment === undefined ? {} : { environment }), route, limitBytes: maxBytes } },
  );
}
