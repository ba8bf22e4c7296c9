import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type ClientCapabilities,
  type Implementation,
  PROTOCOL_VERSION_META_KEY,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";

/**
 * Who is calling, as far as a tool needs to know: the two eras of MCP declare it differently.
 * A 2025 client says it once, at `initialize`, for the whole session; a 2026-07-28 client sends no
 * `initialize` and says it on every request, in the `_meta` envelope.
 */
export interface CallingClient {
  /** `modern`: the request carried the 2026-07-28 envelope; `legacy`: a 2025-era session. */
  readonly era: "modern" | "legacy";
  /** The revision the request was sent for (modern) or the one negotiated at `initialize`. */
  readonly protocolVersion?: string;
  /** The client's name and version, when it gave them. */
  readonly info?: { readonly name: string; readonly version?: string };
  /** The client declared URL-mode elicitation (`elicitation: { url: {} }`). */
  readonly urlElicitation: boolean;
}

export function callingClient(server: Server, ctx: ServerContext): CallingClient {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const modernVersion = envelope?.[PROTOCOL_VERSION_META_KEY];
  if (typeof modernVersion === "string") {
    return describe(
      "modern",
      modernVersion,
      envelope?.[CLIENT_INFO_META_KEY] as Implementation | undefined,
      envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined,
    );
  }
  return describe(
    "legacy",
    server.getNegotiatedProtocolVersion(),
    server.getClientVersion(),
    server.getClientCapabilities(),
  );
}

function describe(
  era: CallingClient["era"],
  protocolVersion: string | undefined,
  info: Implementation | undefined,
  capabilities: ClientCapabilities | undefined,
): CallingClient {
  const elicitation = capabilities?.elicitation as { url?: unknown } | undefined;
  return {
    era,
    ...(protocolVersion === undefined ? {} : { protocolVersion }),
    ...(info === undefined || typeof info.name !== "string"
      ? {}
      : { info: { name: info.name, ...(info.version === undefined ? {} : { version: info.version }) } }),
    urlElicitation: elicitation?.url !== undefined,
  };
}
