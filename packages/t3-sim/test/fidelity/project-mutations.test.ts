/**
 * Project admin as the real 0.0.31 answered it (fixtures 100-115, a later capture of the same
 * build): the simulator plays each captured step over a real socket and must answer the same
 * Exit (success, typed `ProjectMutationError` with the same message and inner cause, or a decode
 * defect), with the capture's ids and folders replaced by this run's.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { T3RpcClient } from "@t3-connector/core/t3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../src/simulator.js";
import { type Fixture, loadFixtures } from "./fixtures.js";

const byName = new Map(loadFixtures().map((fixture) => [fixture.name, fixture]));
const CAPTURED_WORKSPACE = "/work/real/projects/workspace";

function captured(name: string): { sent: Record<string, unknown>; exit: Record<string, unknown> } {
  const fixture = byName.get(name) as Fixture;
  const sent = fixture.request.ws_frames_sent?.[0]?.frame.payload as Record<string, unknown>;
  const exit = fixture.response.ws_frames_received?.find((entry) => entry.frame._tag === "Exit")?.frame
    .exit as Record<string, unknown>;
  return { sent, exit };
}

function captured107(): Record<string, unknown> {
  return (byName.get("107-http-projects-mutate-delete-not-empty") as Fixture).request.body as Record<
    string,
    unknown
  >;
}

/** What the capture's answer says, reduced to what the sim must match (ids and folders swapped). */
function shapeOf(exit: Record<string, unknown>, swap: (text: string) => string): unknown {
  if (exit._tag === "Success") {
    const value = exit.value as Record<string, unknown>;
    return {
      ok: true,
      title: value.title,
      workspaceRoot: swap(String(value.workspaceRoot)),
      deleted: value.deletedAt !== null,
    };
  }
  const [entry] = exit.cause as Record<string, unknown>[];
  if (entry?._tag === "Die") return { die: String(entry.defect).slice(0, 60) };
  const error = entry?.error as Record<string, unknown>;
  const cause = error.cause as Record<string, unknown> | undefined;
  const inner = (cause?.cause ?? cause) as Record<string, unknown> | undefined;
  return {
    fail: error._tag,
    message: swap(String(error.message)),
    ...(inner === undefined ? {} : { inner: inner.name, innerMessage: swap(String(inner.message)) }),
  };
}

describe("projects.mutate plays 0.0.31 (fixtures 100-115)", () => {
  let sim: Simulator;
  let client: T3RpcClient;
  let readClient: T3RpcClient;
  let workspace: string;
  /** The last Exit each client received, as it came off the socket (the client keeps no cause chain). */
  const lastExit = new Map<T3RpcClient, Record<string, unknown>>();
  const connect = async (baseUrl: string, token: string) => {
    let exit: Record<string, unknown> | undefined;
    const connected = await T3RpcClient.connect({
      baseUrl,
      token,
      onFrame: (direction, frame) => {
        const record = frame as Record<string, unknown>;
        if (direction === "received" && record._tag === "Exit") exit = record.exit as Record<string, unknown>;
        if (exit !== undefined) lastExit.set(connected, exit);
      },
    });
    return connected;
  };
  const ids = new Map<string, string>();
  /** The capture's id or folder, as this run's. */
  const swap = (text: string) => {
    let out = text.split(CAPTURED_WORKSPACE).join(workspace);
    for (const [from, to] of ids) out = out.split(from).join(to);
    return out;
  };
  const idFor = (captureId: unknown) => {
    const key = String(captureId);
    if (!ids.has(key)) ids.set(key, randomUUID());
    return ids.get(key) as string;
  };

  async function play(name: string, over: T3RpcClient = client): Promise<{ theirs: unknown; ours: unknown }> {
    const { sent, exit } = captured(name);
    const payload: Record<string, unknown> = { ...sent, commandId: idFor(sent.commandId) };
    if (typeof sent.projectId === "string") payload.projectId = idFor(sent.projectId);
    if (typeof sent.workspaceRoot === "string") payload.workspaceRoot = swap(sent.workspaceRoot);
    await over.call("projects.mutate", payload).catch(() => undefined);
    const ours = lastExit.get(over);
    return {
      theirs: shapeOf(exit, swap),
      ours: ours === undefined ? undefined : shapeOf(ours, (text) => text),
    };
  }

  beforeAll(async () => {
    workspace = mkdtempSync(path.join(os.tmpdir(), "t3-sim-projects-"));
    for (const folder of ["proj-a", "proj-b", "proj-d"]) mkdirSync(path.join(workspace, folder));
    symlinkSync(os.tmpdir(), path.join(workspace, "link-out"));
    sim = await startSimulator({
      environments: [{ alias: "capture", seed: "empty", compat: "0.0.31", webBuild: false }],
    });
    const env = sim.environments[0];
    if (!env) throw new Error("no environment");
    client = await connect(env.url, env.operateToken);
    readClient = await connect(env.url, env.readToken);
  });

  afterAll(async () => {
    client?.close();
    readClient?.close();
    await sim?.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  it("creates under an existing folder, refuses a missing one unless asked to make it", async () => {
    for (const name of [
      "100-ws-projects-mutate-create",
      "101-ws-projects-mutate-create-missing-root",
      "102-ws-projects-mutate-create-root-if-missing",
    ]) {
      const { theirs, ours } = await play(name);
      expect(ours, name).toEqual(theirs);
    }
  });

  it("renames with project.update; project.meta.update and a dispatched project command are defects", async () => {
    const { theirs, ours } = await play("103-ws-projects-mutate-update-title");
    expect(ours).toEqual(theirs);
    const meta = await play("104-ws-projects-mutate-meta-update");
    expect(meta.ours).toEqual(meta.theirs);
  });

  it("refuses to delete a project holding threads unless forced, then deletes it and its threads", async () => {
    const env = sim.environments[0];
    if (!env) throw new Error("no environment");
    const { sent } = captured("106-ws-projects-mutate-delete-not-empty");
    const projectId = idFor(sent.projectId);
    mkdirSync(path.join(workspace, "proj-b2"));
    await client.call("projects.mutate", {
      type: "project.create",
      commandId: randomUUID(),
      projectId,
      title: "project B",
      workspaceRoot: path.join(workspace, "proj-b2"),
    });
    const threads = [randomUUID(), randomUUID()];
    for (const threadId of threads)
      await client.dispatchCommand({
        type: "thread.create",
        commandId: randomUUID(),
        threadId,
        projectId,
        title: "B thread",
        createdBy: "user",
        creationSource: "web",
        modelSelection: { instanceId: "codex", model: "gpt-5.6-sol" },
        runtimeMode: "approval-required",
        interactionMode: "default",
        branch: null,
        worktreePath: null,
      });
    await client.dispatchCommand({ type: "thread.archive", commandId: randomUUID(), threadId: threads[1] });
    const refused = await play("106-ws-projects-mutate-delete-not-empty");
    expect(refused.ours).toEqual(refused.theirs);
    const forced = await play("108-ws-projects-mutate-delete-force");
    expect((forced.ours as { deleted: boolean }).deleted).toBe(true);
    expect((forced.theirs as { deleted: boolean }).deleted).toBe(true);
    for (const threadId of threads) expect(env.model.httpThread(threadId)).toMatchObject({ status: 404 });
    // 107: the HTTP route deleted project A (holding threads in the capture) whatever force said.
    const http = captured107();
    const answer = await fetch(`${env.url}/api/projects/mutate`, {
      method: "POST",
      headers: { authorization: `Bearer ${env.operateToken}`, "content-type": "application/json" },
      body: JSON.stringify({ ...http, commandId: randomUUID(), projectId: idFor(http.projectId) }),
    });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { deletedAt: unknown }).deletedAt).toEqual(expect.any(String));
    const again = await play("110-ws-projects-mutate-delete-unknown");
    expect(again.ours).toEqual(again.theirs);
  });

  it("answers a repeated commandId the same, refuses a taken folder, keeps a symlink as named", async () => {
    const dup = captured("112-ws-projects-mutate-duplicate-commandId");
    const payload = {
      ...dup.sent,
      commandId: randomUUID(),
      projectId: randomUUID(),
      workspaceRoot: swap(String(dup.sent.workspaceRoot)),
    };
    const first = await client.call("projects.mutate", payload);
    expect(await client.call("projects.mutate", payload)).toEqual(first);
    ids.set(String(dup.sent.projectId), String(payload.projectId));
    const taken = await play("113-ws-projects-mutate-create-same-root");
    expect(taken.ours).toEqual(taken.theirs);
    const link = await play("114-ws-projects-mutate-create-symlink-root");
    expect(link.ours).toEqual(link.theirs);
  });

  it("refuses the read-only token", async () => {
    await expect(
      readClient.call("projects.mutate", {
        type: "project.delete",
        commandId: randomUUID(),
        projectId: randomUUID(),
      }),
    ).rejects.toMatchObject({ code: "insufficient_scope" });
  });
});
