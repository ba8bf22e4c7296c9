import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { connect } from "node:net";
import os from "node:os";
import path from "node:path";
import { serveHttp } from "@t3-connector/read-server";
import { readToolDefinitions } from "@t3-connector/read-server/tools";
import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { captureStreams } from "@t3-connector/test-support/captured-io";
import { freePort } from "@t3-connector/test-support/free-port";
import { type OAuthServe, startOAuthServe } from "@t3-connector/test-support/oauth-serve";
import { writeSimConfig } from "@t3-connector/test-support/sim-config";
import { SoftPasskey } from "@t3-connector/test-support/soft-passkey";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInOnPage } from "./support/page-driver.js";
import { authorizeRequest, postForm } from "./support/pkce.js";

// How `serve --http` with OAuth starts, refuses to start, and answers a request addressed by
// another name: one server per state directory, the bind rule, and the Host refusal's advice.
let sim: Simulator;
const removals: Array<() => Promise<void>> = [];

beforeAll(async () => {
  sim = await startSimulator({ environments: [{ alias: "beta", seed: "demo" }] });
});
afterAll(async () => {
  for (const remove of removals) await remove();
  await sim?.close();
});

/** serveHttp with this `oauth` section and these flags; stops it at once if it starts. */
async function tryServe(
  oauth: Record<string, unknown> | undefined,
  flags: { host?: string; authTokenFile?: string; issuer?: string } = {},
) {
  const config = await writeSimConfig(sim);
  removals.push(config.remove);
  const written = JSON.parse(await readFile(config.configPath, "utf8")) as Record<string, unknown>;
  // No section: OAuth by the flags alone (`--oauth --issuer URL`).
  if (oauth !== undefined) written.oauth = oauth;
  await writeFile(config.configPath, JSON.stringify(written), { mode: 0o600 });
  const streams = captureStreams({ T3_CONNECTOR_CONFIG: config.configPath });
  let stop: (signal: string) => void = () => {};
  const exit = serveHttp(
    streams.io,
    readToolDefinitions,
    {
      host: flags.host ?? "127.0.0.1",
      port: 0,
      allowedHosts: [],
      allowedOrigins: [],
      ...(flags.authTokenFile === undefined ? {} : { authTokenFile: flags.authTokenFile }),
      ...(flags.issuer === undefined ? {} : { oauth: { issuer: flags.issuer } }),
    },
    { stopSignal: new Promise((resolve) => (stop = resolve)) },
  );
  const started = await Promise.race([streams.stdoutLine().then(() => true), exit.then(() => false)]);
  if (started) stop("test");
  return { code: await exit, started, stderr: streams.stderr() };
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "t3c-oauth-start-"));
  removals.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe("serve --http with OAuth: starting", () => {
  it("refuses a second server on the same state directory (state_dir_in_use), and an ended session stays ended after a restart", async () => {
    const stateDir = path.join(await tempDir(), "state");
    let first: OAuthServe | undefined = await startOAuthServe({ stateDir });
    const passkey = new SoftPasskey(first.issuer);
    const registered = await fetch(`${first.issuer}/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ client_name: "c", redirect_uris: ["http://127.0.0.1:9/callback"] }),
    });
    const clientId = ((await registered.json()) as { client_id: string }).client_id;
    const asked = authorizeRequest(first.issuer, {
      clientId,
      redirectUri: "http://127.0.0.1:9/callback",
      resource: first.mcpUrl,
    });
    const back = await signInOnPage(asked.url, passkey, { enrollmentCode: first.enrollmentCode });
    const tokens = await postForm(`${first.issuer}/token`, {
      grant_type: "authorization_code",
      code: back.searchParams.get("code") as string,
      client_id: clientId,
      redirect_uri: "http://127.0.0.1:9/callback",
      code_verifier: asked.verifier,
    });
    const stolen = tokens.body.refresh_token as string;

    const second = await tryServe({ issuer: `http://localhost:${await freePort()}`, stateDir });
    expect(second).toMatchObject({ code: 1, started: false });
    expect(second.stderr).toContain("state_dir_in_use");
    expect(second.stderr).toContain(stateDir);

    // The owner's client refreshes; the thief then presents the old token: the session ends.
    const rotated = await postForm(`${first.issuer}/token`, {
      grant_type: "refresh_token",
      refresh_token: stolen,
      client_id: clientId,
    });
    expect(rotated.status).toBe(200);
    const theft = await postForm(`${first.issuer}/token`, {
      grant_type: "refresh_token",
      refresh_token: stolen,
      client_id: clientId,
    });
    expect(theft.body.error).toBe("invalid_grant");
    await first.close();
    first = undefined;
    // A restart on the same directory: neither token of the ended session works.
    const again = await startOAuthServe({ stateDir });
    try {
      for (const token of [stolen, rotated.body.refresh_token as string]) {
        const refused = await postForm(`${again.issuer}/token`, {
          grant_type: "refresh_token",
          refresh_token: token,
          client_id: clientId,
        });
        expect(refused.body.error).toBe("invalid_grant");
      }
    } finally {
      await again.close();
    }
  });

  it("refuses a plain-http issuer on a non-loopback address with bind_not_allowed", async () => {
    const refused = await tryServe(
      { issuer: "http://localhost:8123", stateDir: path.join(await tempDir(), "s") },
      { host: "0.0.0.0" },
    );
    expect(refused).toMatchObject({ code: 1, started: false });
    expect(refused.stderr).toContain("bind_not_allowed");
    expect(refused.stderr).not.toContain("internal");
    expect(refused.stderr).not.toContain("auth_token_required");
  });

  it("refuses serve --http --oauth --issuer http://localhost:P --host 0.0.0.0 the same way", async () => {
    const refused = await tryServe(undefined, {
      host: "0.0.0.0",
      issuer: `http://localhost:${await freePort()}`,
    });
    expect(refused).toMatchObject({ code: 1, started: false });
    expect(refused.stderr).toContain("bind_not_allowed");
  });

  it("serves an https issuer on every address (a proxy terminates TLS) without asking for a bearer token", async () => {
    const started = await tryServe(
      { issuer: "https://mcp.example.test", stateDir: path.join(await tempDir(), "s") },
      { host: "0.0.0.0" },
    );
    expect(started).toMatchObject({ code: 0, started: true });
  });

  it("says --auth-token-file and an oauth section exclude each other as a typed error", async () => {
    const dir = await tempDir();
    const tokenFile = path.join(dir, "token");
    await writeFile(tokenFile, "a".repeat(64), { mode: 0o600 });
    const refused = await tryServe(
      { issuer: "https://mcp.example.test", stateDir: path.join(dir, "s") },
      { host: "0.0.0.0", authTokenFile: tokenFile },
    );
    expect(refused).toMatchObject({ code: 1, started: false });
    expect(refused.stderr).toContain("invalid_input");
    expect(refused.stderr).toContain("exclude each other");
    expect(refused.stderr).not.toContain("internal");
  });
});

describe("serve --http with OAuth: a request addressed by another name", () => {
  let server: OAuthServe;
  beforeAll(async () => {
    server = await startOAuthServe();
  });
  afterAll(async () => {
    await server?.close();
  });

  const send = (host: string, pathName: string) =>
    new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
      const outgoing = request(
        {
          host: "127.0.0.1",
          port: new URL(server.issuer).port,
          path: pathName,
          method: "GET",
          headers: { Host: host },
        },
        (response) => {
          let text = "";
          response.on("data", (chunk) => (text += chunk));
          response.on("end", () =>
            resolve({ status: response.statusCode ?? 0, body: JSON.parse(text || "{}") }),
          );
        },
      );
      outgoing.on("error", reject);
      outgoing.end();
    });

  it("names the Host it saw, the one it expected and the proxy line, once in the log", async () => {
    const port = new URL(server.issuer).port;
    // nginx's default proxy_pass: its upstream address as Host.
    const upstream = await send(`127.0.0.1:${port}`, "/authorize");
    expect(upstream.status).toBe(403);
    expect(upstream.body).toMatchObject({
      error: "host_not_allowed",
      header: "Host",
      seen: `127.0.0.1:${port}`,
      expected: `localhost:${port}`,
    });
    expect(upstream.body.fix).toContain("proxy_set_header Host $http_host;");
    expect(upstream.body.fix).toContain("upstream address");
    // nginx's $host: the name without the port (refused before the profile, with the same advice).
    const portless = await send("localhost", "/.well-known/oauth-authorization-server");
    expect(portless.body).toMatchObject({ seen: "localhost", expected: `localhost:${port}` });
    expect(portless.body.fix).toContain("not `$host`");
    // No Host at all (HTTP/1.0, as nginx speaks to its upstream by default).
    const none = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () => socket.end("GET /authorize HTTP/1.0\r\n\r\n"));
      let text = "";
      socket.on("data", (chunk) => (text += chunk));
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
    });
    expect(none).toMatch(/^HTTP\/1\.1 403/);
    expect(JSON.parse(none.slice(none.indexOf("\r\n\r\n") + 4))).toMatchObject({
      seen: null,
      expected: `localhost:${port}`,
    });
    const mcp = await send(`127.0.0.1:${port}`, "/mcp");
    expect(mcp.status).toBe(403);
    expect(mcp.body.fix).toContain("proxy_set_header Host $http_host;");
    // The issuer's name in another case is the same name.
    expect((await send(`LOCALHOST:${port}`, "/.well-known/oauth-authorization-server")).status).toBe(200);
    const logged = server.stderr().split(`refused Host "127.0.0.1:${port}"`).length - 1;
    expect(logged).toBe(1);
  });
});
