/**
 * Reads one HTTP/1.1 answer from the bytes a gate connection delivers, strictly: a status line, at
 * most MAX_HEAD_BYTES of header lines, then a body framed by Content-Length, by chunked
 * Transfer-Encoding, or (when neither is given) by the connection's end. Anything else is refused
 * with `AnswerMalformed`, so a process that is not a gate, or bytes that do not belong to this
 * exchange, can never be read as an answer. The body is capped (the relay contract's answer limit).
 */

/** The longest status line and header block accepted; the gate's are a few hundred bytes. */
export const MAX_HEAD_BYTES = 16 * 1024;
/** The longest chunk-size line (hex digits and any extension). */
const MAX_CHUNK_LINE_BYTES = 256;

export interface ParsedAnswer {
  readonly status: number;
  readonly body: Buffer;
  /** The connection may carry another exchange: keep-alive, framed, and nothing after the answer. */
  readonly reusable: boolean;
}

/** The bytes are not an HTTP/1.1 answer this client accepts. */
export class AnswerMalformed extends Error {
  override readonly name = "AnswerMalformed";
}

/** The body is larger than the cap. */
export class AnswerTooLarge extends Error {
  override readonly name = "AnswerTooLarge";
}

type Framing =
  | { readonly kind: "length"; readonly length: number }
  | { readonly kind: "chunked" }
  | { readonly kind: "until_close" };

/** Fed the connection's bytes in order; answers once the whole answer arrived. */
export class AnswerParser {
  readonly #maxBodyBytes: number;
  #buffer: Buffer = Buffer.alloc(0);
  #status = 0;
  #framing: Framing | undefined;
  #keepAlive = true;
  readonly #body: Buffer[] = [];
  #bodyBytes = 0;
  /** Chunked: the bytes left of the current chunk's data, or -1 while a size line is expected. */
  #chunkLeft = -1;
  #inTrailers = false;

  constructor(maxBodyBytes: number) {
    this.#maxBodyBytes = maxBodyBytes;
  }

  /** Adds bytes; the answer once complete, else undefined. Throws AnswerMalformed / AnswerTooLarge. */
  push(chunk: Buffer): ParsedAnswer | undefined {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    if (this.#framing === undefined && !this.#readHead()) return undefined;
    return this.#readBody();
  }

  /** The connection ended: the answer, if its framing is the connection's end; otherwise malformed. */
  end(): ParsedAnswer {
    if (this.#framing?.kind !== "until_close")
      throw new AnswerMalformed("the connection ended before the answer did");
    this.#take(this.#buffer.length);
    return { status: this.#status, body: Buffer.concat(this.#body), reusable: false };
  }

  #readHead(): boolean {
    const headEnd = this.#buffer.indexOf("\r\n\r\n");
    if (headEnd < 0) {
      if (this.#buffer.length > MAX_HEAD_BYTES) throw new AnswerMalformed("the answer's head is too long");
      return false;
    }
    if (headEnd > MAX_HEAD_BYTES) throw new AnswerMalformed("the answer's head is too long");
    const lines = this.#buffer.toString("latin1", 0, headEnd).split("\r\n");
    this.#buffer = this.#buffer.subarray(headEnd + 4);
    const statusLine = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: [^\r\n]*)?$/.exec(lines[0] ?? "");
    if (statusLine === null) throw new AnswerMalformed("no HTTP/1.x status line");
    const status = Number(statusLine[2]);
    // No Expect or Upgrade is ever sent, so an interim or switching answer is not a gate's.
    if (status < 200) throw new AnswerMalformed(`an unexpected ${status} answer`);
    this.#status = status;
    this.#keepAlive = statusLine[1] === "1";
    let length: number | undefined;
    let chunked = false;
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      if (colon <= 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(line.slice(0, colon))) {
        throw new AnswerMalformed("a header line that is not `name: value`");
      }
      const name = line.slice(0, colon).toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === "content-length") {
        if (!/^\d{1,15}$/.test(value)) throw new AnswerMalformed("a Content-Length that is not a number");
        if (length !== undefined && length !== Number(value))
          throw new AnswerMalformed("two Content-Lengths");
        length = Number(value);
      } else if (name === "transfer-encoding") {
        // Only chunked alone: any other coding would need decoding this client does not do.
        if (value.toLowerCase() !== "chunked" || chunked)
          throw new AnswerMalformed(`Transfer-Encoding ${value}`);
        chunked = true;
      } else if (name === "connection") {
        const options = value
          .toLowerCase()
          .split(",")
          .map((option) => option.trim());
        if (options.includes("close")) this.#keepAlive = false;
        else if (options.includes("keep-alive")) this.#keepAlive = true;
      }
    }
    // Both framings at once is how responses are smuggled: refused, as Node's own parser does.
    if (chunked && length !== undefined) throw new AnswerMalformed("both Content-Length and chunked");
    if (status === 204 || status === 304) this.#framing = { kind: "length", length: 0 };
    else if (chunked) this.#framing = { kind: "chunked" };
    else if (length !== undefined) this.#framing = { kind: "length", length };
    else {
      this.#framing = { kind: "until_close" };
      this.#keepAlive = false;
    }
    if (this.#framing.kind === "length" && this.#framing.length > this.#maxBodyBytes) {
      throw new AnswerTooLarge("the answer is larger than the cap");
    }
    return true;
  }

  #readBody(): ParsedAnswer | undefined {
    const framing = this.#framing as Framing;
    if (framing.kind === "until_close") {
      this.#take(this.#buffer.length);
      return undefined;
    }
    if (framing.kind === "length") {
      const wanted = framing.length - this.#bodyBytes;
      if (this.#buffer.length < wanted) {
        this.#take(this.#buffer.length);
        return undefined;
      }
      this.#take(wanted);
      return this.#complete();
    }
    return this.#readChunks();
  }

  #readChunks(): ParsedAnswer | undefined {
    for (;;) {
      if (this.#inTrailers) {
        const lineEnd = this.#buffer.indexOf("\r\n");
        if (lineEnd < 0) return this.#awaitLine();
        const empty = lineEnd === 0;
        this.#buffer = this.#buffer.subarray(lineEnd + 2);
        if (empty) return this.#complete();
        continue;
      }
      if (this.#chunkLeft < 0) {
        const lineEnd = this.#buffer.indexOf("\r\n");
        if (lineEnd < 0) return this.#awaitLine();
        const line = this.#buffer.toString("latin1", 0, lineEnd);
        const size = /^([0-9A-Fa-f]{1,8})(?:;[^\r\n]*)?$/.exec(line);
        if (size === null) throw new AnswerMalformed("a chunk size that is not hex");
        this.#buffer = this.#buffer.subarray(lineEnd + 2);
        const bytes = Number.parseInt(size[1] as string, 16);
        if (bytes === 0) {
          this.#inTrailers = true;
          continue;
        }
        if (this.#bodyBytes + bytes > this.#maxBodyBytes)
          throw new AnswerTooLarge("the answer is larger than the cap");
        this.#chunkLeft = bytes;
      }
      if (this.#chunkLeft > 0) {
        const taken = Math.min(this.#chunkLeft, this.#buffer.length);
        this.#take(taken);
        this.#chunkLeft -= taken;
        if (this.#chunkLeft > 0) return undefined;
      }
      // The chunk's data is followed by CRLF.
      if (this.#buffer.length < 2) return undefined;
      if (this.#buffer[0] !== 0x0d || this.#buffer[1] !== 0x0a)
        throw new AnswerMalformed("a chunk not ended by CRLF");
      this.#buffer = this.#buffer.subarray(2);
      this.#chunkLeft = -1;
    }
  }

  #awaitLine(): undefined {
    if (this.#buffer.length > MAX_CHUNK_LINE_BYTES)
      throw new AnswerMalformed("a chunk line that is too long");
    return undefined;
  }

  #take(bytes: number): void {
    if (bytes === 0) return;
    if (this.#bodyBytes + bytes > this.#maxBodyBytes)
      throw new AnswerTooLarge("the answer is larger than the cap");
    this.#body.push(this.#buffer.subarray(0, bytes));
    this.#bodyBytes += bytes;
    this.#buffer = this.#buffer.subarray(bytes);
  }

  #complete(): ParsedAnswer {
    return {
      status: this.#status,
      body: this.#body.length === 1 ? (this.#body[0] as Buffer) : Buffer.concat(this.#body),
      // Bytes after the answer belong to no exchange this client made: the connection is not reused.
      reusable: this.#keepAlive && this.#buffer.length === 0,
    };
  }
}
