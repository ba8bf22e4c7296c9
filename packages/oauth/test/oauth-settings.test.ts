import { ConnectorError } from "@t3-connector/core";
import { describe, expect, it } from "vitest";
import { DEFAULT_REDIRECT_URIS, parseOAuthSettings } from "../src/index.js";

const parse = (section: unknown) =>
  parseOAuthSettings(section, { configPath: "config.json", homeDir: "/home/me", env: {} });

describe("the oauth config section", () => {
  it("derives the resource, Host, RP ID and defaults from an https issuer", () => {
    const settings = parse({ issuer: "https://mcp.example.com" });
    expect(settings).toMatchObject({
      issuer: "https://mcp.example.com",
      resource: "https://mcp.example.com/mcp",
      host: "mcp.example.com",
      rpId: "mcp.example.com",
      stateDir: "/home/me/.local/state/t3-connector/oauth",
      loopbackRedirects: false,
      dynamicRegistration: true,
      idleMs: 3_600_000,
      maxAgeMs: undefined,
    });
    expect(settings.redirectUris).toEqual(DEFAULT_REDIRECT_URIS);
    expect(settings.clientIdUrls).toEqual([
      "https://chatgpt.com/oauth/client.json",
      "https://claude.ai/oauth/mcp-oauth-client-metadata",
      "https://claude.ai/oauth/claude-code-client-metadata",
    ]);
  });

  it("accepts plain http only for localhost with a port", () => {
    expect(parse({ issuer: "http://localhost:8000" }).host).toBe("localhost:8000");
    for (const issuer of [
      "http://mcp.example.com",
      "http://127.0.0.1:8000",
      "https://mcp.example.com/base",
      "ftp://x",
    ]) {
      expect(() => parse({ issuer })).toThrowError(ConnectorError);
    }
  });

  it("names the field of a problem under oauth.", () => {
    try {
      parse({ issuer: "https://mcp.example.com", redirectUris: ["http://insecure.example/cb"], extra: 1 });
      expect.unreachable();
    } catch (error) {
      expect((error as ConnectorError).code).toBe("config_invalid");
      expect((error as ConnectorError).message).toContain("oauth.redirectUris.0");
    }
  });
});
