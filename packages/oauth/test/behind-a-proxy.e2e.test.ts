import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { READ_TOOL_NAMES } from "@t3-connector/read-server";
import { freePort } from "@t3-connector/test-support/free-port";
import { MemoryProvider } from "@t3-connector/test-support/memory-provider";
import { type OAuthServe, startOAuthServe } from "@t3-connector/test-support/oauth-serve";
import {
  caddyForTest,
  nginxForTest,
  proxyBinary,
  type RunningProxy,
  readmeRecipe,
  startCaddy,
  startNginx,
} from "@t3-connector/test-support/reverse-proxy";
import { SoftPasskey } from "@t3-connector/test-support/soft-passkey";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInOnPage } from "./support/page-driver.js";

// The README's Caddy and nginx recipes, run by the real Debian binaries in front of serve --http
// with OAuth, and a client signed in through each with the MCP SDK's own OAuth support. (The
// issuer is http://localhost:<proxy port>: the recipes' TLS lines are the only ones replaced.)
// nginx's defaults are shown to fail with an answer that names the fix.

/** The SDK's whole flow through `issuer`: discovery, DCR, the page, the exchange, then tools/list. */
async function signInThrough(server: OAuthServe, passkey: SoftPasskey): Promise<number> {
  const provider = new MemoryProvider("http://127.0.0.1:9/callback");
  expect(await auth(provider, { serverUrl: server.mcpUrl })).toBe("REDIRECT");
  const back = await signInOnPage(provider.authorizationUrl as URL, passkey, {
    enrollmentCode: server.enrollmentCode,
  });
  expect(back.searchParams.get("iss")).toBe(server.issuer);
  const code = back.searchParams.get("code") as string;
  expect(await auth(provider, { serverUrl: server.mcpUrl, authorizationCode: code })).toBe("AUTHORIZED");
  const client = new Client({ name: "proxied", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { authProvider: provider }));
  const { tools } = await client.listTools();
  await client.close();
  return tools.length;
}

async function behind(
  start: (listenPort: number, upstreamPort: number) => Promise<RunningProxy>,
): Promise<{ server: OAuthServe; proxy: RunningProxy }> {
  const [listenPort, upstreamPort] = [await freePort(), await freePort()];
  const server = await startOAuthServe({}, { issuerPort: listenPort, listenPort: upstreamPort });
  try {
    return { server, proxy: await start(listenPort, upstreamPort) };
  } catch (error) {
    await server.close();
    throw error;
  }
}

const nginx = proxyBinary("nginx");
const caddy = proxyBinary("caddy");

describe.skipIf(caddy === undefined)(
  `the README's Caddy recipe${caddy === undefined ? " (skipped: caddy is not installed; apt-get install caddy)" : ""}`,
  () => {
    let running: Awaited<ReturnType<typeof behind>>;
    beforeAll(async () => {
      const recipe = await readmeRecipe("caddy");
      running = await behind((listen, upstream) =>
        startCaddy(caddyForTest(recipe, listen, upstream), listen),
      );
    }, 60_000);
    afterAll(async () => {
      await running?.proxy.close();
      await running?.server.close();
    });

    it("signs a client in through Caddy and serves it the read tools", async () => {
      expect(await signInThrough(running.server, new SoftPasskey(running.server.issuer))).toBe(
        READ_TOOL_NAMES.length,
      );
    });
  },
);

describe.skipIf(nginx === undefined)(
  `the README's nginx recipe${nginx === undefined ? " (skipped: nginx is not installed; apt-get install nginx)" : ""}`,
  () => {
    let recipe: string;
    let running: Awaited<ReturnType<typeof behind>>;
    beforeAll(async () => {
      recipe = await readmeRecipe("nginx");
      running = await behind((listen, upstream) =>
        startNginx(nginxForTest(recipe, listen, upstream), listen),
      );
    }, 60_000);
    afterAll(async () => {
      await running?.proxy.close();
      await running?.server.close();
    });

    it("signs a client in through nginx, run as written, and serves it the read tools", async () => {
      expect(recipe).toContain("proxy_set_header Host $http_host;");
      expect(await signInThrough(running.server, new SoftPasskey(running.server.issuer))).toBe(
        READ_TOOL_NAMES.length,
      );
    });

    it("keeps sign-in and approval URLs out of its access log, which the same block without its access_log line would hold", async () => {
      const paths = [
        "/authorize?state=s3cret&code_challenge=abc",
        "/approve?request=r1",
        "/callback?code=c0de",
      ];
      const through = async (issuer: string) => {
        for (const route of paths) await (await fetch(`${issuer}${route}`)).body?.cancel();
      };
      // The sign-in above went through the recipe; these too.
      await through(running.server.issuer);
      const written = await running.proxy.accessLog();
      for (const secret of ["/authorize", "/approve", "code="]) expect(written).not.toContain(secret);

      // The check can fail: the same block with its access_log line removed logs every one of them.
      const logging = await behind((listen, upstream) =>
        startNginx(nginxForTest(recipe, listen, upstream).replace(/^\s*access_log off;$/m, ""), listen),
      );
      try {
        await through(logging.server.issuer);
        // nginx writes a line as it closes each request, which may be just after the answer.
        await expect
          .poll(async () => {
            const logged = await logging.proxy.accessLog();
            return ["/authorize", "/approve", "code="].filter((secret) => !logged.includes(secret));
          })
          .toEqual([]);
      } finally {
        await logging.proxy.close();
        await logging.server.close();
      }
    });

    it.each([
      [
        "its default proxy_pass (the upstream address as Host)",
        (block: string) => block.replace(/^.*proxy_set_header Host.*$/m, ""),
        "upstream address",
      ],
      [
        "proxy_set_header Host $host (the port dropped)",
        (block: string) => block.replace("$http_host", "$host"),
        "not `$host`",
      ],
    ])(
      "without the Host line, with %s, every route answers 403 JSON naming the fix, and logs it",
      async (_what, change, says) => {
        const variant = await behind((listen, upstream) =>
          startNginx(change(nginxForTest(recipe, listen, upstream)), listen),
        );
        try {
          for (const route of ["/.well-known/oauth-authorization-server", "/authorize", "/mcp"]) {
            const response = await fetch(`${variant.server.issuer}${route}`, {
              method: route === "/mcp" ? "POST" : "GET",
            });
            expect(response.status, route).toBe(403);
            const body = (await response.json()) as Record<string, string>;
            expect(body).toMatchObject({
              error: "host_not_allowed",
              header: "Host",
              expected: new URL(variant.server.issuer).host,
            });
            expect(body.fix).toContain("proxy_set_header Host $http_host;");
            expect(body.fix).toContain(says);
          }
          expect(variant.server.stderr()).toContain("refused Host");
        } finally {
          await variant.proxy.close();
          await variant.server.close();
        }
      },
    );
  },
);
