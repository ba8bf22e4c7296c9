import {
  type JSONRPCMessage,
  type MessageExtraInfo,
  type Server,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  type Transport,
} from "@modelcontextprotocol/server";
import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";
import { refusedInitialize } from "./initialize-check.js";

/** How a stdio session ended. */
export type StdioEnd =
  | { readonly kind: "closed" }
  /** One line on stdin was longer than the limit: the session cannot go on (the line has no end we could skip to). */
  | { readonly kind: "message_too_large"; readonly limitBytes: number };

export interface StdioSession {
  /** Settles once, when the session is over (stdin ended, `close`, or a fatal transport error). */
  readonly ended: Promise<StdioEnd>;
  close(): Promise<void>;
}

export interface StdioServingOptions {
  readonly stdin?: NodeJS.ReadableStream;
  readonly stdout?: NodeJS.WritableStream;
  /** One line to the operator (stderr): transport errors, the reason a session ended. */
  readonly log: (line: string) => void;
  /** The longest message (one line) read from stdin; the SDK's 10 MiB by default. */
  readonly maxMessageBytes?: number;
}

/**
 * Serves MCP on stdio for both eras (ADR 0046): `serveStdio` decides from the opening message
 * whether the connection is a 2025 session (`initialize`) or 2026-07-28 (`server/discover` or a
 * call with the per-request envelope) and pins one server from `factory` to it.
 *
 * What it adds: every transport error is logged (the SDK's hook only reports), and a line over
 * the limit ends the session with `message_too_large`, so the caller exits non-zero with that
 * reason instead of the silent exit 0 the transport alone leads to.
 */
export function serveToolsOnStdio(factory: () => Server, options: StdioServingOptions): StdioSession {
  const limitBytes = options.maxMessageBytes ?? STDIO_DEFAULT_MAX_BUFFER_SIZE;
  let tooLarge = false;
  let settle: (end: StdioEnd) => void = () => {};
  const ended = new Promise<StdioEnd>((resolve) => {
    settle = resolve;
  });
  const wire = new ObservedTransport(
    new StdioServerTransport(
      options.stdin as ConstructorParameters<typeof StdioServerTransport>[0],
      options.stdout as ConstructorParameters<typeof StdioServerTransport>[1],
      { maxBufferSize: limitBytes },
    ),
    {
      error(error) {
        // The read buffer's own words for a line past its cap; the transport closes right after.
        if (/exceeded maximum size/.test(error.message)) tooLarge = true;
        else if (error.name === "ZodError") answerInvalidRequest(wire, options.log);
        else options.log(`stdio transport: ${error.message}`);
      },
      log: options.log,
      closed() {
        settle(tooLarge ? { kind: "message_too_large", limitBytes } : { kind: "closed" });
      },
    },
  );
  const handle = serveStdio(() => factory(), {
    transport: wire,
    onerror: (error) => options.log(`stdio: ${error.message}`),
  });
  return { ended, close: () => handle.close() };
}

/**
 * A line that is JSON but no JSON-RPC message (the SDK's schema refused it: an empty batch `[]`,
 * any batch, which MCP over stdio does not take since 2025-06-18, or an object without `jsonrpc`)
 * is answered as JSON-RPC 2.0 says, with Invalid Request and a null id, and logged in one line
 * (the SDK's error would be the schema's multi-line report). The session goes on.
 */
function answerInvalidRequest(wire: Transport, log: (line: string) => void): void {
  log("stdio transport: a line that is not a JSON-RPC message was answered with -32600 Invalid Request");
  wire
    .send({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32600,
        message: "Invalid Request: not a JSON-RPC 2.0 message (batches are not accepted)",
      },
    } as unknown as JSONRPCMessage)
    .catch(() => undefined);
}

/** The operator's line for a session ended by an over-long message. */
export function describeTooLarge(limitBytes: number): string {
  const mib = limitBytes / (1024 * 1024);
  return (
    `a message on stdin was longer than the ${Number.isInteger(mib) ? `${mib} MiB` : `${limitBytes}-byte`} ` +
    `limit (${limitBytes} bytes); ending the session`
  );
}

interface TransportHooks {
  error(error: Error): void;
  closed(): void;
  /** Logs one line (a refused initialize). */
  log(line: string): void;
}

/**
 * The stdio transport with its error and close reported to us as well: `serveStdio` owns the
 * transport's callbacks, so it gets this object and we keep the hooks underneath.
 */
class ObservedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  constructor(
    private readonly inner: StdioServerTransport,
    hooks: TransportHooks,
  ) {
    inner.onmessage = (message) => {
      const refusal = refusedInitialize(message);
      if (refusal === null) return this.onmessage?.(message);
      hooks.log(`stdio transport: ${refusal.error.message}`);
      inner.send(refusal as unknown as JSONRPCMessage).catch(() => undefined);
    };
    inner.onerror = (error) => {
      hooks.error(error);
      this.onerror?.(error);
    };
    inner.onclose = () => {
      this.onclose?.();
      hooks.closed();
    };
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.inner.send(message);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
