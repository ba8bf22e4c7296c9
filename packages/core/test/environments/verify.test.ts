import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { READ_SCOPES, verifyEnvironment } from "../../src/environments/index.js";
import { T3HttpClient } from "../../src/t3/http-client.js";

/**
 * Servers the simulator cannot play (protocol 1, granular `permissions`): a minimal loopback HTTP
 * server answering the three routes verification reads.
 */
interface Answers {
  descriptor: Record<string, unknown>;
  session: Record<string, unknown>;
  shell?: Record<string, unknown>;
}

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
  );
});

async function serve(answers: Answers): Promise<string> {
  const server = createServer((request, response) => {
    const body =
      request.url === "/.well-known/t3/environment"
        ? answers.descriptor
        : request.url === "/api/auth/session"
          ? answers.session
          : request.url === "/api/orchestration/shell"
            ? answers.shell
            : undefined;
    response.writeHead(body === undefined ? 404 : 200, { "content-type": "application/json" });
    response.end(JSON.stringify(body ?? { _tag: "NotFound" }));
  });
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return `http://127.0.0.1:${address.port}`;
}

const descriptor = { environmentId: "env-x", label: "box", serverVersion: "1.2.3", capabilities: {} };
const readSession = {
  authenticated: true,
  scopes: ["orchestration:read"],
  expiresAt: "2030-01-01T00:00:00.000Z",
};
const target = { alias: "x", environmentId: "env-x", requiredScopes: READ_SCOPES };

async function verify(answers: Answers) {
  const http = new T3HttpClient({ baseUrl: await serve(answers), token: "secret-token" });
  return verifyEnvironment(http, target, new AbortController().signal);
}

describe("environment verification", () => {
  it("refuses a server that declares another orchestration protocol", async () => {
    await expect(
      verify({ descriptor: { ...descriptor, orchestrationProtocolVersion: 1 }, session: readSession }),
    ).rejects.toMatchObject({ code: "protocol_unsupported", message: expect.stringContaining("protocol 1") });
  });

  it("refuses a server without the protocol field whose shell is not schemaVersion 2", async () => {
    await expect(
      verify({
        descriptor,
        session: readSession,
        shell: { schemaVersion: 1, snapshotSequence: 0, threads: [], projects: [] },
      }),
    ).rejects.toMatchObject({ code: "protocol_unsupported" });
  });

  it("prefers permissions over the legacy scopes list", async () => {
    const accepted = await verify({
      descriptor: { ...descriptor, orchestrationProtocolVersion: 2 },
      session: {
        ...readSession,
        scopes: ["orchestration:read", "orchestration:operate"],
        permissions: ["orchestration:read"],
      },
    });
    expect(accepted).toMatchObject({
      name: "box",
      version: "1.2.3",
      protocol: "descriptor",
      scopes: ["orchestration:read"],
    });
    expect(accepted.tokenExpiresAt).toBe("2030-01-01T00:00:00.000Z");

    await expect(
      verify({
        descriptor: { ...descriptor, orchestrationProtocolVersion: 2 },
        session: { ...readSession, permissions: ["orchestration:read", "settings:write"] },
      }),
    ).rejects.toMatchObject({ code: "scope_mismatch", details: { extra: ["settings:write"], missing: [] } });
  });

  it("treats an unauthenticated session as a refused token", async () => {
    await expect(
      verify({
        descriptor: { ...descriptor, orchestrationProtocolVersion: 2 },
        session: { authenticated: false },
      }),
    ).rejects.toMatchObject({ code: "unauthorized" });
  });
});
