/**
 * Day one by URL as the real clients behave (ADR 0070): the MCP SDK clients, v1
 * (`@modelcontextprotocol/sdk`, the 2025 clients in the field) and v2 (`@modelcontextprotocol/client`),
 * connect with an OAuth provider and nothing else, so each runs its own default flow: the 401
 * challenge, the discovery documents, the scope it picks by itself, DCR, PKCE. The test chooses no
 * scope. With a gate present the consent page shows the write box ticked; allowing gives a session
 * that lists `t3_pedir_aprovacao`, unticking gives reads only. With no gate nothing changes: reads
 * only, and no box.
 */
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
  UnauthorizedError as ModernUnauthorized,
} from "@modelcontextprotocol/client";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { readToolDefinitions } from "@t3-connector/read-server";
import { launchChromium, openWithAuthenticator } from "@t3-connector/test-support/chromium";
import { MemoryProvider } from "@t3-connector/test-support/memory-provider";
import { startCallbackServer, startOAuthServe } from "@t3-connector/test-support/oauth-serve";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ConsentOutcome,
  decideOnConsentPage,
  startUrlWritesLoop,
  type UrlWritesLoop,
} from "./support/url-writes-loop.js";

const READ_TOOL_COUNT = readToolDefinitions.length;
type Loop = Pick<UrlWritesLoop, "serve" | "callback" | "signIn">;

interface DefaultFlowResult {
  /** The scope the SDK put in its authorization request, by itself. */
  readonly askedScope: string | null;
  readonly consent: ConsentOutcome;
  readonly toolNames: string[];
  close(): Promise<void>;
}

/** What a default flow needs of one SDK: its client and transport, as a client app makes them. */
interface SdkParts<Transport> {
  /** A client of this SDK, not yet connected. */
  client(): {
    connect(transport: Transport): Promise<void>;
    listTools(): Promise<{ tools: Array<{ name: string }> }>;
    close(): Promise<void>;
  };
  /** This SDK's Streamable HTTP transport with the provider as its only auth. */
  transport(url: URL, provider: MemoryProvider): Transport;
  /** Hands the transport what the callback received, as this SDK takes it. */
  finishAuth(transport: Transport, callback: URLSearchParams): Promise<void>;
  /** The error its connect throws once it has sent the person to the authorization page. */
  readonly unauthorized: new (
    ...args: never[]
  ) => Error;
}

/**
 * One SDK's own flow: connect, 401, its discovery and registration, the redirect, the page in
 * Chromium, finishAuth with the callback, connect again. The test chooses no scope.
 */
async function defaultFlow<Transport>(
  sdk: SdkParts<Transport>,
  loop: Loop,
  allowWrite: boolean,
): Promise<DefaultFlowResult> {
  const provider = new MemoryProvider(loop.callback.url);
  const url = new URL(loop.serve.mcpUrl);
  const first = sdk.transport(url, provider);
  await expect(sdk.client().connect(first)).rejects.toThrow(sdk.unauthorized);
  const authorizationUrl = provider.authorizationUrl as URL;
  const consent = await decideOnConsentPage(loop, authorizationUrl, { allowWrite });
  await sdk.finishAuth(first, consent.callback);
  const client = sdk.client();
  await client.connect(sdk.transport(url, provider));
  const { tools } = await client.listTools();
  return {
    askedScope: authorizationUrl.searchParams.get("scope"),
    consent,
    toolNames: tools.map((tool) => tool.name),
    close: () => client.close(),
  };
}

const V1: SdkParts<StreamableHTTPClientTransport> = {
  client: () => new Client({ name: "v1-default", version: "1.0.0" }),
  transport: (url, provider) => new StreamableHTTPClientTransport(url, { authProvider: provider }),
  // v1 takes the code alone.
  finishAuth: (transport, callback) => transport.finishAuth(callback.get("code") as string),
  unauthorized: UnauthorizedError,
};

const V2: SdkParts<ModernTransport> = {
  client: () => new ModernClient({ name: "v2-default", version: "2.0.0" }),
  transport: (url, provider) => new ModernTransport(url, { authProvider: provider }),
  // v2 takes the callback's parameters (the code and RFC 9207's iss).
  finishAuth: (transport, callback) => transport.finishAuth(callback),
  unauthorized: ModernUnauthorized,
};

const FLOWS = [
  {
    sdk: "v1 (@modelcontextprotocol/sdk)",
    run: (loop: Loop, allow: boolean) => defaultFlow(V1, loop, allow),
  },
  {
    sdk: "v2 (@modelcontextprotocol/client)",
    run: (loop: Loop, allow: boolean) => defaultFlow(V2, loop, allow),
  },
];

describe("with a gate present", () => {
  let loop: UrlWritesLoop;
  beforeAll(async () => {
    loop = await startUrlWritesLoop();
  }, 120_000);
  afterAll(async () => {
    await loop?.close();
  });

  it("challenges for every offered scope and lists both in the protected-resource metadata", async () => {
    const challenge = await fetch(loop.serve.mcpUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get("www-authenticate")).toContain('scope="t3:read t3:write"');
    const metadata = (await (
      await fetch(`${loop.serve.issuer}/.well-known/oauth-protected-resource/mcp`)
    ).json()) as { scopes_supported: string[] };
    expect(metadata.scopes_supported).toEqual(["t3:read", "t3:write"]);
  });

  it.each(FLOWS)(
    "$sdk, its default flow: the write box ticked; allowing lists t3_pedir_aprovacao",
    async ({ run }) => {
      const result = await run(loop, true);
      try {
        expect(result.askedScope).toBe("t3:read t3:write");
        expect(result.consent.writeChoice).toEqual({
          text: expect.stringContaining("t3:write: ask for leases to change threads"),
          ticked: true,
        });
        expect(result.toolNames).toContain("t3_pedir_aprovacao");
        expect(result.toolNames).toContain("t3_escrever_thread_pin");
      } finally {
        await result.close();
      }
    },
    90_000,
  );

  it.each(FLOWS)(
    "$sdk, its default flow: unticking the box gives a reads-only session",
    async ({ run }) => {
      const result = await run(loop, false);
      try {
        expect(result.consent.writeChoice?.ticked).toBe(true);
        expect(result.toolNames).toHaveLength(READ_TOOL_COUNT);
        expect(result.toolNames).not.toContain("t3_pedir_aprovacao");
      } finally {
        await result.close();
      }
    },
    90_000,
  );
});

describe("with no gate", () => {
  let loop: Loop & { close(): Promise<void> };
  beforeAll(async () => {
    const [serve, callback, browser] = await Promise.all([
      startOAuthServe(),
      startCallbackServer(),
      launchChromium(),
    ]);
    const signIn = await openWithAuthenticator(browser);
    loop = {
      serve,
      callback,
      signIn,
      async close() {
        await signIn.context.close();
        await browser.close();
        await callback.close();
        await serve.close();
      },
    };
  }, 120_000);
  afterAll(async () => {
    await loop?.close();
  });

  it.each(FLOWS)(
    "$sdk, its default flow: reads only, and no box",
    async ({ run }) => {
      const result = await run(loop, true);
      try {
        expect(result.askedScope).toBe("t3:read");
        expect(result.consent.writeChoice).toBeUndefined();
        expect(result.toolNames).toHaveLength(READ_TOOL_COUNT);
        expect(result.toolNames).not.toContain("t3_pedir_aprovacao");
      } finally {
        await result.close();
      }
    },
    90_000,
  );
});
