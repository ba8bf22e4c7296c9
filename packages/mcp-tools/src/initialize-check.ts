/**
 * An `initialize` whose `protocolVersion` is not a string (ADR 0073): answered -32602 Invalid
 * params in one line, before the SDK sees it, instead of the SDK's -32603 with its validation dump.
 * Both the stdio transport and the HTTP endpoint ask this first.
 */
export interface InitializeRefusal {
  readonly jsonrpc: "2.0";
  readonly id: string | number | null;
  readonly error: { readonly code: -32602; readonly message: string };
}

export const INITIALIZE_VERSION_MESSAGE = "Invalid params: initialize's protocolVersion must be a string";

export function refusedInitialize(message: unknown): InitializeRefusal | null {
  if (message === null || typeof message !== "object" || Array.isArray(message)) return null;
  const { method, params, id } = message as { method?: unknown; params?: unknown; id?: unknown };
  if (method !== "initialize" || params === null || typeof params !== "object") return null;
  const version = (params as { protocolVersion?: unknown }).protocolVersion;
  if (typeof version === "string") return null;
  return {
    jsonrpc: "2.0",
    id: typeof id === "string" || typeof id === "number" ? id : null,
    error: { code: -32602, message: INITIALIZE_VERSION_MESSAGE },
  };
}
