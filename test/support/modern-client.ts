import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

/**
 * MCP clients of the 2026-07-28 era: the SDK's v2 client pinned to that revision, so the connect
 * fails loudly unless the server's `server/discover` offers it (no silent fall back to 2025).
 */
export const MODERN_REVISION = "2026-07-28";

export interface ModernClientOptions {
  /** Declare URL-mode elicitation and answer each URL request with `action` (the person's click). */
  readonly urlElicitation?: (request: { url: string; message: string }) => "accept" | "decline" | "cancel";
}

export function modernClient(name: string, options: ModernClientOptions = {}): Client {
  const answer = options.urlElicitation;
  const client = new Client(
    { name, version: "0.0.0" },
    {
      versionNegotiation: { mode: { pin: MODERN_REVISION } },
      ...(answer === undefined ? {} : { capabilities: { elicitation: { url: {} } } }),
    },
  );
  if (answer !== undefined) {
    client.setRequestHandler("elicitation/create", async (request) => {
      const params = request.params as { url?: string; message: string };
      return { action: answer({ url: params.url ?? "", message: params.message }) };
    });
  }
  return client;
}

/** A 2026-07-28 client connected to a spawned stdio server. */
export async function connectModernStdio(
  command: { command: string; args: string[]; env: Record<string, string> },
  options: ModernClientOptions & { onStderr?: (text: string) => void } = {},
): Promise<Client> {
  const transport = new StdioClientTransport({ ...command, stderr: "pipe" });
  transport.stderr?.on("data", (chunk: Buffer) => options.onStderr?.(chunk.toString("utf8")));
  const client = modernClient("t3-connector-2026-e2e", options);
  await client.connect(transport);
  return client;
}

/** A 2026-07-28 client connected to `url` over Streamable HTTP, with a bearer token when given. */
export async function connectModernHttp(url: string, token?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    ...(token === undefined ? {} : { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  });
  const client = modernClient("t3-connector-2026-e2e");
  await client.connect(transport);
  return client;
}

/** Environment for a spawned process: the test's own, as plain strings. */
export function processEnv(extra: Record<string, string>): Record<string, string> {
  return { ...(process.env as Record<string, string>), ...extra };
}
