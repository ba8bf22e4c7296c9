import {
  type Implementation,
  type JSONRPCRequest,
  type RequestId,
  type Result,
  Server,
  type ServerContext,
  type ServerOptions,
} from "@modelcontextprotocol/server";
import { verifyRequestState } from "./url-input.js";

type RequestHandler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/**
 * The SDK's protocol server, with one difference: a `tools/call` whose `arguments` is not an
 * object (`null`, an array, a string…) still reaches our handler, which answers it as a tool
 * error the model can read (ADR 0004). The v2 server checks every `tools/call` against the
 * protocol's schema before any handler runs, whatever way the handler was registered, and
 * would answer those calls with a JSON-RPC -32602 that names neither our code nor the fix.
 *
 * How: such `arguments` are taken out of the request before the SDK's check and handed to our
 * handler beside it, keyed by the request's id (unique among a connection's requests in flight;
 * the SDK may hand the handler a context derived from the one seen here, with the same id). Everything else of the SDK's check (name, `_meta`, the result's shape)
 * stays in force. The SDK's check also drops a `__proto__` key from `arguments`, which our check
 * must see to refuse it (ADR 0004): so our handler reads the arguments as sent, never the SDK's copy.
 *
 * It also verifies a 2026-07-28 `requestState` with the process's own seal, and lets the tool
 * handlers be set once: a later `setRequestHandler("tools/call" | "tools/list")` throws instead of
 * silently replacing the handler that checks every call.
 */
export class ToolServer extends Server {
  readonly #sentArguments = new Map<RequestId, unknown>();
  readonly #toolHandlers = new Set<string>();

  /** `requestState` is verified with the process's seal (url-input.ts) unless the options say otherwise. */
  constructor(info: Implementation, options: ServerOptions = {}) {
    super(info, { requestState: { verify: verifyRequestState }, ...options });
  }

  /** The `arguments` of the call answered under `ctx` exactly as the client sent them. */
  sentArgumentsOf(ctx: ServerContext): unknown {
    return this.#sentArguments.get(ctx.mcpReq.id);
  }

  protected override _wrapHandler(method: string, handler: RequestHandler): RequestHandler {
    if (method === "tools/call" || method === "tools/list") {
      if (this.#toolHandlers.has(method)) {
        throw new Error(`A request handler for ${method} already exists, which would be overridden`);
      }
      this.#toolHandlers.add(method);
    }
    const wrapped = super._wrapHandler(method, handler);
    if (method !== "tools/call") return wrapped;
    return async (request, ctx) => {
      const params = request.params as Record<string, unknown> | undefined;
      this.#sentArguments.set(request.id, params?.arguments);
      try {
        if (params === undefined || params.arguments === undefined || isPlainObject(params.arguments)) {
          return await wrapped(request, ctx);
        }
        const { arguments: _kept, ...rest } = params;
        return await wrapped({ ...request, params: rest }, ctx);
      } finally {
        this.#sentArguments.delete(request.id);
      }
    };
  }
}

function isPlainObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
