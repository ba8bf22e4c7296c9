import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { captureIo } from "@t3-connector/test-support/sim-config";
import { describe, expect, it } from "vitest";
import { parseCliArgs } from "../../src/cli/args.js";
import { runCli } from "../../src/cli.js";
import { buildAllowlist } from "../../src/http/host-origin-guard.js";
import { isLoopbackHost } from "../../src/http/loopback.js";

describe("serve --http on the command line", () => {
  it("defaults to 127.0.0.1:8000 without a token", () => {
    expect(parseCliArgs(["serve", "--http"])).toEqual({
      kind: "serve",
      logLevel: "info",
      http: { host: "127.0.0.1", port: 8000, allowedHosts: [], allowedOrigins: [] },
    });
  });

  it("takes host, port, token file, repeated allow-lists and the log level, in either spelling", () => {
    expect(
      parseCliArgs([
        "serve",
        "--log-level=warn",
        "--http",
        "--host",
        "0.0.0.0",
        "--port=8443",
        "--auth-token-file",
        "/etc/t3/http.token",
        "--allowed-host",
        "mcp.example.com",
        "--allowed-host=10.0.0.5:8443",
        "--allowed-origin",
        "https://chatgpt.com/",
      ]),
    ).toEqual({
      kind: "serve",
      logLevel: "warn",
      http: {
        host: "0.0.0.0",
        port: 8443,
        authTokenFile: "/etc/t3/http.token",
        allowedHosts: ["mcp.example.com", "10.0.0.5:8443"],
        allowedOrigins: ["https://chatgpt.com"],
      },
    });
  });

  it("takes trusted proxies repeated or as a comma list", () => {
    const parsed = parseCliArgs([
      "serve",
      "--http",
      "--trusted-proxy",
      "127.0.0.1, ::1",
      "--trusted-proxy=10.0.0.2",
    ]);
    expect(parsed).toMatchObject({ http: { trustedProxies: ["127.0.0.1", "::1", "10.0.0.2"] } });
  });

  it("keeps plain serve as it was", () => {
    expect(parseCliArgs(["serve", "--log-level", "debug"])).toEqual({ kind: "serve", logLevel: "debug" });
  });

  it.each([
    [["serve", "--port", "8000"], "--port needs --http"],
    [["serve", "--auth-token-file", "f"], "--auth-token-file needs --http"],
    [["serve", "--http", "--port", "70000"], "--port takes a port number"],
    [["serve", "--http", "--port", "80", "--port", "81"], "--port given twice"],
    [["serve", "--http", "--host"], "--host needs a value"],
    [
      ["serve", "--http", "--allowed-host", "https://mcp.example.com"],
      "--allowed-host takes NAME or NAME:PORT",
    ],
    [["serve", "--http", "--allowed-host", "*.example.com"], "--allowed-host takes NAME or NAME:PORT"],
    [["serve", "--http", "--allowed-origin", "chatgpt.com"], "--allowed-origin takes an origin"],
    [["serve", "--http", "--allowed-origin", "https://chatgpt.com/path"], "--allowed-origin takes an origin"],
    [["serve", "--http", "--bind", "x"], "unknown command or argument: --bind"],
    [["serve", "--trusted-proxy", "127.0.0.1"], "--trusted-proxy needs --http"],
    [["serve", "--http", "--trusted-proxy", "proxy.local"], "--trusted-proxy takes the proxy's IP address"],
  ])("refuses %j", (argv, problem) => {
    const parsed = parseCliArgs(argv);
    expect(parsed.kind).toBe("usage-error");
    expect((parsed as { problem: string }).problem).toContain(problem);
  });
});

describe("the bind address", () => {
  it.each(["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"])("%s is loopback", (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });
  it.each(["0.0.0.0", "::", "10.0.0.5", "192.168.1.2", "example.com", "128.0.0.1"])("%s is not", (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});

describe("the Host and Origin allowlist", () => {
  it("holds the bind host and the loopback names with the port, plus what the operator added", () => {
    const list = buildAllowlist({
      host: "10.0.0.5",
      port: 8000,
      allowedHosts: ["MCP.example.com", "proxy.example.com:443"],
      allowedOrigins: ["https://chatgpt.com"],
    });
    expect([...list.hosts].sort()).toEqual(
      [
        "10.0.0.5:8000",
        "127.0.0.1:8000",
        "[::1]:8000",
        "localhost:8000",
        "mcp.example.com",
        "mcp.example.com:8000",
        "proxy.example.com:443",
      ].sort(),
    );
    expect([...list.origins].sort()).toEqual(
      [
        "http://10.0.0.5:8000",
        "http://127.0.0.1:8000",
        "http://[::1]:8000",
        "http://localhost:8000",
        "https://chatgpt.com",
      ].sort(),
    );
  });
});

describe("client-config <client> --http", () => {
  it("parses --http with the default URL or --url", () => {
    expect(parseCliArgs(["client-config", "cursor", "--http"])).toEqual({
      kind: "client-config",
      client: "cursor",
      http: {},
    });
    expect(
      parseCliArgs(["client-config", "chatgpt", "--http", "--url", "https://mcp.example.com/mcp"]),
    ).toEqual({
      kind: "client-config",
      client: "chatgpt",
      http: { url: "https://mcp.example.com/mcp" },
    });
    expect(parseCliArgs(["client-config", "cursor", "--url", "http://x/mcp"]).kind).toBe("usage-error");
    expect(parseCliArgs(["client-config", "cursor", "--http", "--url", "ftp://x"]).kind).toBe("usage-error");
  });

  it("prints each client's URL config with the token taken from the environment, never a token", async () => {
    const url = "http://127.0.0.1:8123/mcp";
    const print = async (client: string) => {
      // No read config: the bearer snippets (an oauth section would change them, below).
      const captured = captureIo({ T3_CONNECTOR_CONFIG: "/nonexistent/t3-connector/config.json" });
      const code = await runCli(["client-config", client, "--http", "--url", url], captured.io);
      return { code, out: captured.stdout(), err: captured.stderr() };
    };
    const cursor = await print("cursor");
    expect(JSON.parse(cursor.out)).toEqual({
      mcpServers: {
        "t3-connector": { url, headers: { Authorization: `Bearer \${env:T3_CONNECTOR_HTTP_TOKEN}` } },
      },
    });
    const vscode = JSON.parse((await print("vscode")).out) as { servers: Record<string, unknown> };
    expect(vscode.servers["t3-connector"]).toMatchObject({ type: "http", url });
    expect((await print("claude-code")).out).toBe(
      `claude mcp add --transport http t3-connector ${url} --header "Authorization: Bearer $T3_CONNECTOR_HTTP_TOKEN"\n`,
    );
    const chatgpt = (await print("chatgpt")).out;
    expect(chatgpt).toContain(`      url: ${url}\n`);
    expect(chatgpt).toContain("    Authorization: env:T3_CONNECTOR_HTTP_AUTHORIZATION\n");
    const desktop = await print("claude-desktop");
    expect(desktop.code).toBe(64);
    expect(desktop.err).toContain("stdio servers only");
  });

  it("with an oauth section, prints the issuer's /mcp URL and no token for each client", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "t3c-client-config-"));
    try {
      const configPath = path.join(dir, "config.json");
      await writeFile(
        configPath,
        JSON.stringify({ environments: {}, oauth: { issuer: "https://mcp.example.com" } }),
        { mode: 0o600 },
      );
      const print = async (client: string) => {
        const captured = captureIo({ T3_CONNECTOR_CONFIG: configPath });
        const code = await runCli(["client-config", client, "--http"], captured.io);
        expect(code, captured.stderr()).toBe(0);
        return captured.stdout();
      };
      const url = "https://mcp.example.com/mcp";
      expect(JSON.parse(await print("cursor"))).toEqual({ mcpServers: { "t3-connector": { url } } });
      expect(JSON.parse(await print("vscode"))).toEqual({
        servers: { "t3-connector": { type: "http", url } },
      });
      expect(await print("claude-code")).toContain(`claude mcp add --transport http t3-connector ${url}\n`);
      for (const client of ["chatgpt", "claude-desktop", "inspector", "cursor", "claude-code"]) {
        const out = await print(client);
        expect(out).toContain(url);
        expect(out).not.toMatch(/Bearer|TOKEN|127\.0\.0\.1:8000/);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
