/**
 * The change summaries' routes over real sockets (ADR 0068, "On the approval pages"), attacked as
 * a hostile page or stranger would: `/api/changes` reads only the threads the gate's own records
 * name (a thread id in the body is refused), answers a foreign Origin 403; `/approve/api/changes`
 * needs a live request's id, answers counts and never a file name; the summaries are cached, so a
 * flood of reads costs T3 one thread read per thread.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { postJson } from "@t3-connector/test-support/gate-http";
import { type SimGate, startSimGate } from "@t3-connector/test-support/sim-gate";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const PAST = Date.now() - 30 * 60_000;
let gate: SimGate;
let oauthDir: string;
let requestId: string;

interface Rows {
  threads: { environmentId: string; threadId: string; state: string; line: string }[];
}

beforeEach(async () => {
  oauthDir = await mkdtemp(join(tmpdir(), "t3c-changes-routes-"));
  gate = await startSimGate({
    environments: [{ alias: "alpha", projects: [{ id: "p-api", title: "API", workspaceRoot: "/work/api" }] }],
    serve: true,
    remoteApprovalAtOwnOrigin: { oauthStateDir: oauthDir },
  });
  const alpha = gate.sim.environment("alpha").model;
  alpha.addThread({
    id: "t-edit",
    projectId: "p-api",
    title: "Edit",
    state: "completed",
    message: "[[sim:edit=src/secret-name.ts|export const x = 1;]]",
    at: PAST,
  });
  alpha.addThread({ id: "t-other", projectId: "p-api", title: "Other", state: "completed", at: PAST });
  requestId = (await gate.desk.request({ actions: ["thread.pin"], threads: ["t-edit"] })).requestId;
});

afterEach(async () => {
  await gate.close();
  await rm(oauthDir, { recursive: true, force: true });
});

const threadReads = () =>
  gate.sim.environment("alpha").httpRequests.filter((r) => r.path.startsWith("/api/orchestration/threads/"))
    .length;

describe("the change summaries' routes", () => {
  it("answers the request's named threads on the gate's page, from one cached read each", async () => {
    const local = { origin: gate.origin };
    const first = await postJson(gate.port, "/api/changes", { requestId }, local);
    expect(first.status).toBe(200);
    expect((first.body as Rows).threads).toEqual([
      expect.objectContaining({ threadId: "t-edit", state: "known", line: "1 file changed, +1 -0" }),
    ]);
    const reads = threadReads();
    expect(reads).toBeGreaterThan(0);
    for (let round = 0; round < 20; round += 1)
      await postJson(gate.port, "/api/changes", { requestId }, local);
    expect(threadReads()).toBe(reads);
  });

  it("reads only threads the gate's records name: a thread in the body, or a foreign Origin, is refused", async () => {
    const local = { origin: gate.origin };
    const named = await postJson(gate.port, "/api/changes", { requestId, threadId: "t-other" }, local);
    expect(named.status).toBe(400);
    const foreign = await postJson(
      gate.port,
      "/api/changes",
      { requestId },
      { origin: "https://evil.example" },
    );
    expect(foreign.status).toBe(403);
    expect(JSON.stringify(foreign.body)).not.toContain("file changed");
    const unknown = await postJson(gate.port, "/api/changes", { requestId: "no-such-request" }, local);
    expect((unknown.body as Rows).threads).toEqual([]);
  });

  it("from afar: counts only, and only with a live request's id", async () => {
    const local = { origin: gate.origin };
    const shown = await postJson(gate.port, "/approve/api/changes", { requestId }, local);
    expect(shown.status).toBe(200);
    expect((shown.body as Rows).threads.map((row) => row.line)).toEqual(["1 file changed, +1 -0"]);
    expect(JSON.stringify(shown.body)).not.toContain("secret-name");
    const view = await postJson(gate.port, "/approve/api/view", { requestId }, local);
    expect(JSON.stringify(view.body)).not.toContain("secret-name");
    const foreign = await postJson(
      gate.port,
      "/approve/api/changes",
      { requestId },
      { origin: "https://evil.example" },
    );
    expect(foreign.status).toBe(403);
    expect(JSON.stringify(foreign.body)).not.toContain("file changed");
    const stranger = await postJson(gate.port, "/approve/api/changes", { requestId: "guessed" }, local);
    expect(stranger.status).toBe(404);
    expect(JSON.stringify(stranger.body)).not.toContain("file changed");
  });
});
