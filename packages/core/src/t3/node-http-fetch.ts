/**
 * @module The connector's HTTP client for T3: one exchange over `node:http` (`node:https` for an
 * https base URL), with the part of `fetch` the T3 client uses and nothing more.
 *
 * Why not Node's `fetch`: its first use in a process loads undici and instantiates its llhttp
 * WebAssembly parser, about 50 ms of CPU on Node 20 and 12 ms on Node 24, paid by every spawned
 * `serve` before its first tool answer (its start-up check is a T3 request; docs/adr/0060).
 * `node:http` is Node's own parser, already compiled into the binary.
 *
 * What a caller sees is what `fetch` gave it: the answer as it came (a redirect is never followed,
 * as with `redirect: "manual"`), the headers fetch adds (gzip and deflate asked for; those and
 * brotli decoded), a string
 * body sent as `text/plain;charset=UTF-8` unless the caller names a type, an abort rejecting with
 * the signal's reason (the request and the body being read alike), and a network failure rejecting
 * with `TypeError("fetch failed")` whose `cause` carries the system error's code (`ECONNREFUSED`),
 * which `fetchFailure` turns into the same messages. Tests that inject a `fetch` keep doing so:
 * `fetch` is a `T3Fetch`.
 */
import type http from "node:http";
import { pipeline, type Readable, type Transform } from "node:stream";
import zlib from "node:zlib";
import type { BodyMessage, ByteStreamReader } from "../http-edge/bounded-body.js";

/** What the T3 client passes to one exchange. */
export interface T3FetchInit {
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
  /** T3 never redirects; a redirect is an answer like any other. */
  readonly redirect: "manual";
  readonly signal: AbortSignal;
}

/** What the T3 client reads of an answer: a `Response` is one. */
export interface T3Answer extends BodyMessage {
  readonly status: number;
  readonly ok: boolean;
}

/** One HTTP exchange with T3. Node's `fetch` is one; `nodeHttpFetch` is the default. */
export type T3Fetch = (url: URL, init: T3FetchInit) => Promise<T3Answer>;

export const nodeHttpFetch: T3Fetch = async (url, init) => {
  const { signal } = init;
  signal.throwIfAborted();
  // Refused before anything is sent, as fetch refuses them (without echoing the credentials).
  if (url.username !== "" || url.password !== "") {
    throw new TypeError("Request cannot be constructed from a URL that includes credentials");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw networkFailure(new Error("unknown scheme"));
  // Taken with getBuiltinModule, not `import`: on Node 24, importing node:http as an ES module
  // reads every export of it, among them the lazy WebSocket classes, which load undici after all.
  const transport =
    url.protocol === "https:"
      ? process.getBuiltinModule("node:https")
      : process.getBuiltinModule("node:http");
  return await new Promise<T3Answer>((resolve, reject) => {
    const request = transport.request(url, {
      method: init.method,
      headers: requestHeaders(init),
      signal,
    });
    // `on`, not `once`: the socket can fail again after the answer began (the body then fails too).
    request.on("error", (error) => reject(signal.aborted ? signal.reason : networkFailure(error)));
    request.once("response", (message) => {
      resolve(answerOf(message, signal));
    });
    request.end(init.body);
  });
};

/** The headers Node's fetch adds to every request (Node 20 to 24 alike), so T3 and proxies see the same. */
const FETCH_HEADERS: Readonly<Record<string, string>> = {
  "accept-language": "*",
  "sec-fetch-mode": "cors",
  "user-agent": "node",
  "accept-encoding": "gzip, deflate",
};

function requestHeaders(init: T3FetchInit): Record<string, string> {
  const headers: Record<string, string> = { ...FETCH_HEADERS };
  for (const [name, value] of Object.entries(init.headers)) headers[name.toLowerCase()] = value;
  if (init.body !== undefined) {
    headers["content-type"] ??= "text/plain;charset=UTF-8";
    headers["content-length"] = String(Buffer.byteLength(init.body));
  }
  return headers;
}

/** As undici words it: the failure is the `cause`, whose `code` names it. */
function networkFailure(error: unknown): TypeError {
  return new TypeError("fetch failed", { cause: error });
}

function answerOf(message: http.IncomingMessage, signal: AbortSignal): T3Answer {
  const status = message.statusCode ?? 0;
  const body = decoded(message);
  // An abort while the body is read ends the read with the signal's reason, as with fetch.
  const onAbort = () => body.destroy(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  body.once("close", () => signal.removeEventListener("abort", onAbort));
  return {
    status,
    ok: status >= 200 && status <= 299,
    headers: {
      get(name) {
        const values = message.headersDistinct[name.toLowerCase()];
        return values === undefined ? null : values.join(", ");
      },
    },
    body: answerBody(body, signal),
  };
}

/** The body as sent, decoded when T3 (or a proxy in front of it) compressed it. */
function decoded(message: http.IncomingMessage): Readable {
  const encoding = message.headers["content-encoding"]?.trim().toLowerCase();
  const decoder = encoding === undefined ? undefined : decoderFor(encoding);
  const body = decoder === undefined ? message : pipeline(message, decoder, () => undefined);
  // A failure is read through the body's reader; nobody reading it must not crash the process.
  body.on("error", () => undefined);
  return body;
}

function decoderFor(encoding: string): Transform | undefined {
  if (encoding === "gzip" || encoding === "x-gzip") return zlib.createGunzip();
  if (encoding === "deflate") return zlib.createInflate();
  if (encoding === "br") return zlib.createBrotliDecompress();
  return undefined;
}

function answerBody(stream: Readable, signal: AbortSignal): NonNullable<BodyMessage["body"]> {
  const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const cancel = async (): Promise<void> => {
    stream.destroy();
  };
  const reader: ByteStreamReader = {
    async read() {
      try {
        const next = await chunks.next();
        return next.done ? { done: true, value: undefined } : { done: false, value: next.value };
      } catch (error) {
        throw signal.aborted ? signal.reason : networkFailure(error);
      }
    },
    cancel,
  };
  return { getReader: () => reader, cancel };
}
