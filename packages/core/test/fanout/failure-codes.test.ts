import { describe, expect, it } from "vitest";
import { ConnectorError } from "../../src/errors.js";
import { classifyFailure } from "../../src/fanout/index.js";

describe("sweep failure codes", () => {
  it.each([
    [new ConnectorError("unavailable", "GET /x: T3 is unreachable (ECONNREFUSED)"), "unavailable"],
    [new ConnectorError("connection_lost", "socket closed"), "unavailable"],
    [new ConnectorError("tunnel_failed", "ssh: Could not resolve hostname box"), "unavailable"],
    [new ConnectorError("timeout", "no answer"), "timeout"],
    [new ConnectorError("global_timeout", "deadline"), "global_timeout"],
    [
      new ConnectorError("environment_mismatch", "x", { details: { expected: "a", actual: "b" } }),
      "environment_mismatch",
    ],
    [new ConnectorError("unauthorized", "401", { status: 401 }), "unauthorized"],
    [new ConnectorError("insufficient_scope", "403", { status: 403 }), "http_403"],
    [new ConnectorError("http_error", "503", { status: 503 }), "http_503"],
    [new ConnectorError("thread_not_found", "404", { status: 404 }), "http_404"],
    [new ConnectorError("unauthorized", "session not authenticated"), "unauthorized"],
    [
      new ConnectorError("scope_mismatch", "x", {
        details: { missing: [], extra: ["orchestration:operate"] },
      }),
      "connection_refused",
    ],
    [new ConnectorError("protocol_unsupported", "x"), "protocol_unsupported"],
    [new ConnectorError("insufficient_scope", "ws scope error"), "connection_refused"],
    [
      new ConnectorError("token_file_invalid", "token file /home/me/.t3/token must have mode 600"),
      "connection_refused",
    ],
    [
      new ConnectorError("rpc_failure", "x", { t3: { tag: "OrchestrationV2GetThreadProjectionError" } }),
      "connection_refused",
    ],
    [new ConnectorError("out_of_scope", "projectId p9 is not authorized in this environment"), "refused"],
    [new ConnectorError("invalid_input", "the woke filter cannot be decided here"), "refused"],
    [new ConnectorError("invalid_response", "GET /x: expected JSON, got text/html"), "failed"],
    [new Error("boom at /src/x.ts:10:5"), "failed"],
    ["a string", "failed"],
  ])("classifies %s as %s", (error, code) => {
    expect(classifyFailure(error).code).toBe(code);
  });

  it("writes reasons itself: no token path, ssh output or stack trace survives", () => {
    const inputs = [
      new ConnectorError(
        "tunnel_failed",
        "SSH tunnel to box failed: ssh: connect to host box port 22: No route",
      ),
      new ConnectorError("token_file_invalid", "token file /home/me/.secret/token is empty"),
      Object.assign(new Error("boom"), { stack: "Error: boom\n    at read (/src/read.ts:1:1)" }),
      new ConnectorError("unavailable", "GET /api/orchestration/shell: T3 is unreachable (ECONNREFUSED)"),
    ];
    for (const input of inputs) {
      const { reason } = classifyFailure(input);
      expect(reason).not.toMatch(/\/home|\/src|ssh:|No route|ECONNREFUSED|\bat /);
    }
  });

  it("names the scope difference and the two environmentIds, which are not secrets", () => {
    expect(
      classifyFailure(
        new ConnectorError("scope_mismatch", "x", {
          details: { missing: ["orchestration:read"], extra: [] },
        }),
      ).reason,
    ).toBe("the token's scopes are not the ones required (missing orchestration:read)");
    expect(
      classifyFailure(
        new ConnectorError("environment_mismatch", "x", { details: { expected: "e1", actual: "e2" } }),
      ).reason,
    ).toBe("the server answered as another environment (expected e1, got e2)");
    expect(classifyFailure(new ConnectorError("insufficient_scope", "x", { status: 403 })).reason).toContain(
      "refused the token",
    );
  });
  it("says whether an environment's answer or its answers at once passed the limit", () => {
    const one = new ConnectorError("response_too_large", "x", { details: { limitBytes: 1024 } });
    expect(classifyFailure(one)).toEqual({
      code: "failed",
      reason: "the environment's answer was larger than the limit (1024 bytes) and it was refused",
    });
    const together = new ConnectorError("response_too_large", "x", {
      details: { limitBytes: 4096, limit: "environment_in_flight" },
    });
    expect(classifyFailure(together).reason).toBe(
      "the environment's answers being read at once passed the limit (4096 bytes) and it was refused",
    );
  });
});
