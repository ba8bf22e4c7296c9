import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type SimEnvironment, type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exchangePairingCode, grantedScopes, T3HttpClient } from "../../src/t3/index.js";
import { caughtConnectorError } from "../support/caught-connector-error.js";

const READ = ["orchestration:read"];

describe("exchangePairingCode against the simulator", () => {
  let sim: Simulator;
  let env: SimEnvironment;

  beforeAll(async () => {
    sim = await startSimulator({ environments: [{ alias: "alpha", seed: "empty" }] });
    env = sim.environment("alpha");
  });

  afterAll(async () => {
    await sim.close();
  });

  it("narrows a standard pairing grant to exactly the requested scope", async () => {
    const code = env.createPairingCode({});
    const result = await exchangePairingCode({ baseUrl: env.url, code, scopes: READ, clientLabel: "test" });
    expect(result.scopes).toEqual(READ);
    expect(result.expiresAt).toBeDefined();
    const session = await new T3HttpClient({ baseUrl: env.url, token: result.accessToken }).getAuthSession();
    expect(session.authenticated).toBe(true);
    expect(grantedScopes(session)).toEqual(READ);
  });

  it("refuses a second exchange of the same single-use code", async () => {
    const code = env.createPairingCode({});
    await exchangePairingCode({ baseUrl: env.url, code, scopes: READ });
    const error = await caughtConnectorError(exchangePairingCode({ baseUrl: env.url, code, scopes: READ }));
    expect(error.code).toBe("pairing_failed");
    expect(error.status).toBe(401);
    expect(error.t3?.reason).toBe("invalid_credential");
    expect(error.message).not.toContain(code);
  });

  it("refuses a code the server never issued", async () => {
    const error = await caughtConnectorError(
      exchangePairingCode({ baseUrl: env.url, code: "NOTAREALCODE", scopes: READ }),
    );
    expect(error.code).toBe("pairing_failed");
  });

  it("reports scopes the pairing grant does not hold as scope_not_granted", async () => {
    const code = env.createPairingCode({ scopes: READ });
    const error = await caughtConnectorError(
      exchangePairingCode({
        baseUrl: env.url,
        code,
        scopes: ["orchestration:read", "orchestration:operate"],
      }),
    );
    expect(error.code).toBe("scope_not_granted");
  });
});

describe("exchangePairingCode scope equality", () => {
  // The simulator grants exactly what was asked, as T3 does; a server that grants more (or
  // less) than requested can only be played by a small stand-in.
  let server: Server;
  let baseUrl: string;
  let grantedScope = "";
  let lastForm: URLSearchParams | undefined;
  let lastContentType: string | undefined;

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => {
        body += chunk.toString("utf8");
      });
      request.on("end", () => {
        lastForm = new URLSearchParams(body);
        lastContentType = request.headers["content-type"];
        response.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
        response.end(
          JSON.stringify({
            access_token: "issued-token",
            issued_token_type: "urn:ietf:params:oauth:token-type:access_token",
            token_type: "Bearer",
            expires_in: 2591999,
            scope: grantedScope,
          }),
        );
      });
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("sends the token-exchange form with the space-separated scope set", async () => {
    grantedScope = "orchestration:operate orchestration:read";
    const result = await exchangePairingCode({
      baseUrl,
      code: "ABCD2345EFGH",
      scopes: ["orchestration:read", "orchestration:operate"],
      clientLabel: "t3-connector (test)",
    });
    expect(result.accessToken).toBe("issued-token");
    expect(lastContentType).toBe("application/x-www-form-urlencoded");
    expect(Object.fromEntries(lastForm ?? [])).toEqual({
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      subject_token: "ABCD2345EFGH",
      subject_token_type: "urn:t3:params:oauth:token-type:environment-bootstrap",
      requested_token_type: "urn:ietf:params:oauth:token-type:access_token",
      scope: "orchestration:read orchestration:operate",
      client_label: "t3-connector (test)",
      client_device_type: "desktop",
    });
  });

  it("discards a token granted with more scopes than requested", async () => {
    grantedScope = "orchestration:read orchestration:operate";
    const error = await caughtConnectorError(
      exchangePairingCode({ baseUrl, code: "ABCD2345EFGH", scopes: READ }),
    );
    expect(error.code).toBe("scope_not_granted");
    expect(error.details).toMatchObject({ missing: [], extra: ["orchestration:operate"] });
    expect(error.message).toContain("orchestration:operate");
    expect(error.message).not.toContain("issued-token");
  });

  it("discards a token granted with fewer scopes than requested", async () => {
    grantedScope = "orchestration:read";
    const error = await caughtConnectorError(
      exchangePairingCode({
        baseUrl,
        code: "ABCD2345EFGH",
        scopes: ["orchestration:read", "orchestration:operate"],
      }),
    );
    expect(error.code).toBe("scope_not_granted");
    expect(error.details).toMatchObject({ missing: ["orchestration:operate"], extra: [] });
  });
});
