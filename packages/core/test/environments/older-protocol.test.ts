import { ConnectorError } from "@t3-connector/core";
import { READ_SCOPES, verifyEnvironment } from "@t3-connector/core/environments";
import { classifyFailure } from "@t3-connector/core/fanout";
import { T3HttpClient } from "@t3-connector/core/t3";
import { startV1Server, type V1Server } from "@t3-connector/test-support/t3-v1-server";
import { afterEach, describe, expect, it } from "vitest";

/** The refusal of servers before the protocol-2 cut-over, against the real 0.0.28's answers (ADR 0069). */
let server: V1Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function verifyV1() {
  server = await startV1Server();
  const http = new T3HttpClient({ baseUrl: server.url, token: "read-token" });
  const target = { alias: "old-box", environmentId: server.environmentId, requiredScopes: READ_SCOPES };
  return verifyEnvironment(http, target, new AbortController().signal);
}

describe("a protocol-1 server with threads (real 0.0.28 answers)", () => {
  it("is protocol_unsupported, naming the environment, its version and the upgrade, not a shape error", async () => {
    const error = await verifyV1().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error).toMatchObject({
      code: "protocol_unsupported",
      details: { environment: "old-box", serverVersion: "0.0.28", schemaVersion: null, v1Rows: 3 },
    });
    const message = (error as ConnectorError).message;
    expect(message).toContain('"old-box"');
    expect(message).toContain("T3 0.0.28");
    expect(message).toContain("upgrade T3 to 0.0.46 or later");
    expect(message).not.toContain("threads.0");
    expect(server?.requests).toEqual([
      "GET /.well-known/t3/environment",
      "GET /api/auth/session",
      "GET /api/orchestration/shell",
    ]);
  });

  it("is reported by the reads as protocol_unsupported with the version, not http_200", async () => {
    const error = await verifyV1().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(classifyFailure(error)).toEqual({
      code: "protocol_unsupported",
      reason: "the server (T3 0.0.28) does not speak orchestration protocol 2; upgrade T3 to 0.0.46 or later",
    });
  });
});

describe("what a read meets", () => {
  it("names a 200 whose body is not T3's as unreadable, not as HTTP 200", () => {
    const answer = new ConnectorError("invalid_response", "unexpected answer shape", { status: 200 });
    expect(classifyFailure(answer).code).toBe("failed");
  });

  it("names a 426 upgrade refusal protocol_unsupported", () => {
    const refused = new ConnectorError("protocol_unsupported", "426", { status: 426 });
    expect(classifyFailure(refused).code).toBe("protocol_unsupported");
  });
});
