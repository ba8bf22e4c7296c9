import { randomUUID } from "node:crypto";
import { type SimEnvironment, type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { freePort } from "@t3-connector/test-support/free-port";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grantedScopes, T3HttpClient, T3RpcClient } from "../../src/t3/index.js";
import { caughtConnectorError } from "../support/caught-connector-error.js";
import { useAlphaAndTransitional } from "./alpha-and-transitional.js";

let env: SimEnvironment;
let transitional: SimEnvironment;

useAlphaAndTransitional((alpha, beta) => {
  env = alpha;
  transitional = beta;
});

/** A fetch that records what the client sent, then really sends it. */
function recordingFetch() {
  const sent: { url: string; headers: Headers }[] = [];
  const wrapped: typeof fetch = (input, init) => {
    sent.push({ url: String(input), headers: new Headers(init?.headers) });
    return fetch(input, init);
  };
  return { sent, fetch: wrapped };
}

describe("T3HttpClient reads", () => {
  it("reads the public descriptor without sending the token", async () => {
    const recorder = recordingFetch();
    const client = new T3HttpClient({ baseUrl: env.url, token: env.readToken, fetch: recorder.fetch });
    const descriptor = await client.getDescriptor();
    expect(descriptor.environmentId).toBe(env.environmentId);
    expect(descriptor.orchestrationProtocolVersion).toBe(2);
    expect(recorder.sent[0]?.headers.get("authorization")).toBeNull();
  });

  it("reads a transitional server's descriptor, which has no protocol version", async () => {
    const client = new T3HttpClient({ baseUrl: transitional.url, token: transitional.readToken });
    const descriptor = await client.getDescriptor();
    expect(descriptor.environmentId).toBe(transitional.environmentId);
    expect(descriptor.orchestrationProtocolVersion).toBeUndefined();
    const shell = await client.getShell();
    expect(shell.schemaVersion).toBe(2);
    expect(shell.threads.length).toBeGreaterThan(0);
  });

  it("reports an unauthenticated session as data, not as a 401", async () => {
    const anonymous = await new T3HttpClient({ baseUrl: env.url }).getAuthSession();
    expect(anonymous.authenticated).toBe(false);
    const garbage = await new T3HttpClient({ baseUrl: env.url, token: "not-a-real-token" }).getAuthSession();
    expect(garbage.authenticated).toBe(false);
    const read = await new T3HttpClient({ baseUrl: env.url, token: env.readToken }).getAuthSession();
    expect(read.authenticated).toBe(true);
    expect(grantedScopes(read)).toEqual(["orchestration:read"]);
  });

  it("sends the bearer and the protocol header on every orchestration read", async () => {
    const recorder = recordingFetch();
    const client = new T3HttpClient({ baseUrl: env.url, token: env.readToken, fetch: recorder.fetch });
    const shell = await client.getShell();
    const threadId = shell.threads[0]?.id ?? "";
    const snapshot = await client.getThread(threadId);
    const bounded = await client.getThreadBounded(threadId);
    const projects = await client.getProjects();

    expect(shell.snapshotSequence).toBeGreaterThan(0);
    expect(shell.projects.length).toBeGreaterThan(0);
    expect(snapshot.projection.thread.id).toBe(threadId);
    expect(snapshot.snapshotSequence).toBeGreaterThanOrEqual(0);
    expect(bounded.projection.thread.id).toBe(threadId);
    expect(typeof bounded.hasMoreHistory).toBe("boolean");
    expect(projects.projects.map((p) => p.id).sort()).toEqual(shell.projects.map((p) => p.id).sort());
    for (const request of recorder.sent) {
      expect(request.headers.get("authorization")).toBe(`Bearer ${env.readToken}`);
      expect(request.headers.get("x-t3-orchestration-protocol")).toBe("2");
    }
  });

  it("mints a websocket ticket", async () => {
    const ticket = await new T3HttpClient({ baseUrl: env.url, token: env.readToken }).createWebSocketTicket();
    expect(ticket.ticket.length).toBeGreaterThan(0);
  });
});

describe("T3HttpClient errors", () => {
  it("types an unknown thread as thread_not_found", async () => {
    const client = new T3HttpClient({ baseUrl: env.url, token: env.readToken });
    const error = await caughtConnectorError(client.getThread("00000000-0000-4000-8000-000000000000"));
    expect(error.code).toBe("thread_not_found");
    expect(error.status).toBe(404);
    expect(error.t3?.tag).toBe("EnvironmentResourceNotFoundError");
  });

  it("types a refused credential as unauthorized and never repeats the token", async () => {
    const token = "not-a-real-token-s3cr3t";
    const error = await caughtConnectorError(new T3HttpClient({ baseUrl: env.url, token }).getShell());
    expect(error.code).toBe("unauthorized");
    expect(error.status).toBe(401);
    expect(error.t3?.reason).toBe("invalid_credential");
    expect(error.message).not.toContain(token);
    expect(String(error)).not.toContain(token);
  });

  it("types an expired token as unauthorized", async () => {
    env.faults.set({ expireTokens: true });
    const error = await caughtConnectorError(
      new T3HttpClient({ baseUrl: env.url, token: env.readToken }).getShell(),
    );
    expect(error.code).toBe("unauthorized");
    expect(error.message).not.toContain(env.readToken);
  });

  it("types a missing scope as insufficient_scope with the required scope", async () => {
    const token = env.issueToken({ scopes: ["relay:read"] });
    const error = await caughtConnectorError(new T3HttpClient({ baseUrl: env.url, token }).getShell());
    expect(error.code).toBe("insufficient_scope");
    expect(error.status).toBe(403);
    expect(error.t3?.requiredScope).toBe("orchestration:read");
  });

  it("never parses a 200 HTML fallback page as data", async () => {
    env.faults.set({ nonJsonOrchestration: "html" });
    const error = await caughtConnectorError(
      new T3HttpClient({ baseUrl: env.url, token: env.readToken }).getShell(),
    );
    expect(error.code).toBe("invalid_response");
    expect(error.status).toBe(200);
  });

  it("types a 503 text/plain answer as http_error with its status", async () => {
    env.faults.set({ nonJsonOrchestration: "text" });
    const error = await caughtConnectorError(
      new T3HttpClient({ baseUrl: env.url, token: env.readToken }).getShell(),
    );
    expect(error.code).toBe("http_error");
    expect(error.status).toBe(503);
  });

  it("types a server error as http_error with its status and T3's tag", async () => {
    env.faults.set({ httpStatus: 500 });
    const client = new T3HttpClient({ baseUrl: env.url, token: env.readToken });
    const error = await caughtConnectorError(client.getShell());
    expect(error.code).toBe("http_error");
    expect(error.status).toBe(500);
    expect(error.t3?.code).toBe("internal_error");
    const session = await caughtConnectorError(client.getAuthSession());
    expect(session.status).toBe(500);
  });

  it("types a refused connection as unavailable", async () => {
    const port = await freePort();
    const error = await caughtConnectorError(
      new T3HttpClient({ baseUrl: `http://127.0.0.1:${port}`, token: "t" }).getShell(),
    );
    expect(error.code).toBe("unavailable");
  });

  it("gives up on a hung server at the per-request deadline", async () => {
    env.faults.set({ hang: true });
    const client = new T3HttpClient({ baseUrl: env.url, token: env.readToken, timeoutMs: 200 });
    const error = await caughtConnectorError(client.getShell());
    expect(error.code).toBe("timeout");
  });

  it("stops when the caller's signal aborts", async () => {
    env.faults.set({ hang: true });
    const controller = new AbortController();
    const client = new T3HttpClient({ baseUrl: env.url, token: env.readToken });
    const pending = client.getShell({ signal: controller.signal });
    controller.abort();
    const error = await caughtConnectorError(pending);
    expect(error.code).toBe("cancelled");
  });
});

describe("T3HttpClient history pages", () => {
  // A manual clock lets the test finish each simulated run at once, without waiting.
  let manual: Simulator;

  beforeAll(async () => {
    manual = await startSimulator({ environments: [{ alias: "long", seed: "demo" }], clock: "manual" });
  });

  afterAll(async () => {
    await manual.close();
  });

  it("pages older rows with the opaque cursor of the bounded snapshot", async () => {
    const target = manual.environment("long");
    const http = new T3HttpClient({ baseUrl: target.url, token: target.readToken });
    const draft = (await http.getShell()).threads.find((t) => t.title === "Empty draft");
    if (!draft) throw new Error("the demo seed has no idle draft thread");
    const rpc = await T3RpcClient.connect({ baseUrl: target.url, token: target.operateToken });
    try {
      let bounded = await http.getThreadBounded(draft.id);
      for (let turn = 0; !bounded.historyCursor && turn < 80; turn++) {
        await rpc.dispatchCommand({
          type: "message.dispatch",
          commandId: randomUUID(),
          threadId: draft.id,
          messageId: randomUUID(),
          text: `turn ${turn}`,
          attachments: [],
          createdBy: "user",
          creationSource: "web",
          dispatchMode: { type: "start_immediately" },
        });
        target.clock.advance(10_000);
        bounded = await http.getThreadBounded(draft.id);
      }
      expect(bounded.hasMoreHistory).toBe(true);
      const cursor = bounded.historyCursor ?? "";
      const page = await http.getThreadHistory(draft.id, cursor);
      expect(page.items.length).toBeGreaterThan(0);
      const windowIds = new Set(bounded.projection.visibleTurnItems.map((row) => row.item.id));
      expect(page.items.some((row) => windowIds.has(row.item.id))).toBe(false);

      const refused = await caughtConnectorError(http.getThreadHistory(draft.id, "not-a-cursor"));
      expect(refused.code).toBe("invalid_request");
      expect(refused.t3?.reason).toBe("invalid_history_cursor");
    } finally {
      rpc.close();
    }
  });
});
