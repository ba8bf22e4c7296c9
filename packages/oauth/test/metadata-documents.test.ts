import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ConnectorError } from "@t3-connector/core";
import { afterAll, describe, expect, it } from "vitest";
import {
  CLAUDE_CLIENT_ID_URL,
  displayableClientName,
  type FetchedDocument,
  jwksUriProblem,
  MetadataDocuments,
  parseOAuthSettings,
  RegisteredClients,
} from "../src/index.js";

const OTHER_URL = "https://client.example.test/client.json";
const settings = parseOAuthSettings(
  { issuer: "https://mcp.example.test", stateDir: "/nonexistent", clientIdUrls: [OTHER_URL] },
  { configPath: "test" },
);

function documents(answers: Array<FetchedDocument | Error>) {
  let wall = 1_000_000;
  let mono = 0;
  const lines: string[] = [];
  const queue = [...answers];
  const docs = new MetadataDocuments({
    settings,
    clock: { now: () => wall, monotonic: () => mono },
    log: (line) => lines.push(line),
    fetcher: async () => {
      const next = queue.shift();
      if (next === undefined) throw new Error("no answer queued");
      if (next instanceof Error) throw next;
      return next;
    },
  });
  return {
    docs,
    lines,
    /** Past every cache lifetime. */
    later: () => {
      wall += 2 * 86_400_000;
      mono += 2 * 86_400_000;
    },
  };
}

const ok = (body: unknown): FetchedDocument => ({
  status: 200,
  cacheControl: "max-age=60",
  body: JSON.stringify(body),
});

describe("a pinned vendor document", () => {
  it.each([
    ["a 403 challenge page", { status: 403, cacheControl: undefined, body: "<html>Just a moment...</html>" }],
    ["HTML with 200", { status: 200, cacheControl: undefined, body: "<!doctype html><title>Claude</title>" }],
    ["a 404", { status: 404, cacheControl: undefined, body: "Not Found" }],
    ["JSON that is not a document", ok({ hello: "world" })],
    [
      "a document naming another client",
      ok({ client_id: OTHER_URL, client_name: "x", redirect_uris: ["https://a.example/cb"] }),
    ],
  ])("stands in when the live fetch answers %s, and the log says so once", async (_what, answer) => {
    const { docs, lines } = documents([answer]);
    const client = await docs.resolve(CLAUDE_CLIENT_ID_URL);
    expect(client).toMatchObject({
      clientId: CLAUDE_CLIENT_ID_URL,
      clientName: "Claude",
      authMethod: "none",
      redirectUris: ["https://claude.ai/api/mcp/auth_callback"],
    });
    // Cached: the next sign-in neither fetches nor logs again.
    await docs.resolve(CLAUDE_CLIENT_ID_URL);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("using the copy pinned in this release (served 2026-09-29)");
  });

  it("is replaced by a live document that passes, which then stands in when a later fetch fails", async () => {
    const live = {
      client_id: CLAUDE_CLIENT_ID_URL,
      client_name: "Claude",
      redirect_uris: ["https://claude.ai/api/mcp/auth_callback", "https://claude.com/api/mcp/auth_callback"],
      token_endpoint_auth_method: "none",
    };
    const { docs, lines, later } = documents([
      ok(live),
      new ConnectorError("client_metadata_unavailable", "offline"),
    ]);
    expect((await docs.resolve(CLAUDE_CLIENT_ID_URL)).redirectUris).toHaveLength(2);
    expect(lines).toEqual([]);
    later();
    expect((await docs.resolve(CLAUDE_CLIENT_ID_URL)).redirectUris).toHaveLength(2);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/not usable \(offline\); using the live copy fetched at \d{4}-/);
  });

  it("does not exist for other client-id URLs: their failure is invalid_client", async () => {
    const { docs } = documents([{ status: 403, cacheControl: undefined, body: "<html>" }]);
    await expect(docs.resolve(OTHER_URL)).rejects.toMatchObject({ code: "invalid_client" });
  });
});

describe("what a metadata document may say", () => {
  it("a jwks_uri only on https and never on this machine or a private network", async () => {
    for (const uri of [
      "http://keys.example.com/jwks.json",
      "https://localhost/jwks.json",
      "https://api.localhost/jwks.json",
      "https://127.0.0.1/jwks.json",
      "https://10.1.2.3/jwks.json",
      "https://192.168.1.1/jwks.json",
      "https://169.254.169.254/latest",
      "https://[::1]/jwks.json",
      "https://[::ffff:127.0.0.1]/jwks.json",
      "https://[fd00::1]/jwks.json",
    ]) {
      expect(jwksUriProblem(uri), uri).toBeDefined();
    }
    expect(jwksUriProblem("https://keys.example.com/jwks.json")).toBeUndefined();
    const { docs } = documents([
      ok({
        client_id: OTHER_URL,
        client_name: "Keyed",
        redirect_uris: ["https://client.example.test/cb"],
        token_endpoint_auth_method: "private_key_jwt",
        jwks_uri: "https://127.0.0.1/jwks.json",
      }),
    ]);
    await expect(docs.resolve(OTHER_URL)).rejects.toMatchObject({
      code: "invalid_client",
      message: expect.stringContaining("must not point at this machine"),
    });
  });

  it("a client name loses bidirectional overrides, invisible characters and controls", async () => {
    expect(displayableClientName("Good\u202Egnp.exe\u202C")).toBe("Goodgnp.exe");
    expect(displayableClientName("a\u200Bb\u2066c\u2069\u0007d\nnext\u2028line")).toBe("abcd next line");
    expect(displayableClientName("\u200F\u200E ")).toBe("Unnamed client");
    const { docs } = documents([
      ok({
        client_id: OTHER_URL,
        client_name: "Trusted\u202Eevil",
        redirect_uris: ["https://client.example.test/cb"],
      }),
    ]);
    expect((await docs.resolve(OTHER_URL)).clientName).toBe("Trustedevil");
  });
});

describe("DCR registration", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("gives a client that registers again with the same name and redirect URIs its earlier registration", async () => {
    const stateDir = await mkdtemp(path.join(os.tmpdir(), "t3c-dcr-"));
    dirs.push(stateDir);
    const local = { ...settings, stateDir };
    const clock = { now: () => Date.now(), monotonic: () => performance.now() };
    const registry = await RegisteredClients.open(local, clock);
    const claude = ["https://claude.ai/api/mcp/auth_callback", "https://claude.com/api/mcp/auth_callback"];
    const first = await registry.register({ client_name: "Claude", redirect_uris: claude });
    const again = await registry.register({ client_name: "Claude", redirect_uris: [...claude].reverse() });
    expect(first.reused).toBe(false);
    expect(again).toMatchObject({ reused: true, client: { clientId: first.client.clientId } });
    const other = await registry.register({ client_name: "Claude", redirect_uris: [claude[0]] });
    expect(other.client.clientId).not.toBe(first.client.clientId);
    const renamed = await registry.register({ client_name: "Claude\u200B", redirect_uris: claude });
    // The same name once invisible characters are gone: the same registration.
    expect(renamed.client.clientId).toBe(first.client.clientId);
    // And after a restart, from the file.
    const reopened = await RegisteredClients.open(local, clock);
    expect((await reopened.register({ client_name: "Claude", redirect_uris: claude })).client.clientId).toBe(
      first.client.clientId,
    );
  });
});
