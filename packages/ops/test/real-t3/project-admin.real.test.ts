/**
 * Project admin (ADR 0074) against a real T3 server, by hand: not part of `pnpm test` (CI has no
 * real T3), run with `pnpm test:real` where one runs (docs/testing-against-real-t3.md).
 *
 * Through the operator's module API (`act`: the catalogue entries, the engine's project checks and
 * its one send, the same ones the gate's dispatcher runs), against the server at T3_REAL_URL with
 * the operate token in T3_REAL_OPERATE_TOKEN_FILE. The server must run on this machine: the
 * allowed project root is a temporary folder made here. It creates, renames, moves and deletes its own
 * projects ("real-t3 project trial: <time>"), and touches nothing else.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ConnectorError } from "@t3-connector/core";
import { T3RpcClient } from "@t3-connector/core/t3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { act, Ops, parseOpsConfig } from "../../src/index.js";

const URL_ = process.env.T3_REAL_URL ?? "";
const OPERATE_TOKEN_FILE = process.env.T3_REAL_OPERATE_TOKEN_FILE ?? "";
const ALIAS = "real";

let dir: string;
let root: string;
let outside: string;
let ops: Ops;
let token: string;
const stamp = new Date().toISOString();

async function liveProjects(): Promise<{ id: string; title: string; workspaceRoot: string }[]> {
  const answer = await fetch(`${URL_}/api/projects`, { headers: { authorization: `Bearer ${token}` } });
  const { projects } = (await answer.json()) as {
    projects: { id: string; title: string; workspaceRoot: string; deletedAt: string | null }[];
  };
  return projects.filter((project) => project.deletedAt === null);
}

function write(action: string, input: Record<string, unknown>, operationId = `real-project-${randomUUID()}`) {
  return act(ops.environments, ALIAS, action, input, { operationId });
}

async function refusal(promise: Promise<unknown>): Promise<ConnectorError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ConnectorError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

beforeAll(async () => {
  if (URL_ === "" || OPERATE_TOKEN_FILE === "") {
    throw new Error("set T3_REAL_URL and T3_REAL_OPERATE_TOKEN_FILE (docs/testing-against-real-t3.md)");
  }
  token = (await readFile(OPERATE_TOKEN_FILE, "utf8")).trim();
  const descriptor = (await (await fetch(`${URL_}/.well-known/t3/environment`)).json()) as {
    environmentId: string;
  };
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), "t3c-real-projects-")));
  root = path.join(dir, "allowed");
  outside = path.join(dir, "outside");
  await mkdir(root);
  await mkdir(outside);
  await symlink(outside, path.join(root, "escape"));
  ops = new Ops({
    config: parseOpsConfig(
      {
        environments: {
          [ALIAS]: {
            environmentId: descriptor.environmentId,
            url: URL_,
            tokenFile: OPERATE_TOKEN_FILE,
            projectRoots: [root],
          },
        },
      },
      { path: path.join(dir, "ops.json") },
    ),
  });
});

afterAll(async () => {
  await ops?.environments.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("project admin on a real T3", () => {
  it("refuses a folder outside the allowed root, or through a symlink that leaves it, and sends nothing", async () => {
    const before = await liveProjects();
    for (const [workspaceRoot, reason] of [
      [outside, "outside_project_roots"],
      [path.join(root, "escape"), "symlink_leaves_root"],
    ] as const) {
      const error = await refusal(
        write("project.create", { title: `real-t3 refused: ${stamp}`, workspaceRoot }),
      );
      expect(error).toMatchObject({ code: "workspace_root_refused", details: { reason } });
    }
    expect(await liveProjects()).toEqual(before);
  });

  it("creates a project in a new folder under the root, renames it, moves it, and deletes it", async () => {
    const folder = path.join(root, "trial");
    const operationId = `real-project-create-${randomUUID()}`;
    const created = await write(
      "project.create",
      { title: `real-t3 project trial: ${stamp}`, workspaceRoot: folder, createWorkspaceRootIfMissing: true },
      operationId,
    );
    const projectId = created.ids.projectId as string;
    expect(created.result).toMatchObject({ projectId, deleted: false });
    expect(existsSync(folder)).toBe(true);
    expect((await liveProjects()).find((project) => project.id === projectId)).toMatchObject({
      title: `real-t3 project trial: ${stamp}`,
      workspaceRoot: folder,
    });
    // The same operationId carries the same commandId: T3 answers its receipt, nothing new.
    const again = await write(
      "project.create",
      { title: `real-t3 project trial: ${stamp}`, workspaceRoot: folder, createWorkspaceRootIfMissing: true },
      operationId,
    );
    expect(again.result).toMatchObject({ projectId });
    expect((await liveProjects()).filter((project) => project.workspaceRoot === folder)).toHaveLength(1);

    await write("project.meta.update", { projectId, title: `real-t3 project trial, renamed: ${stamp}` });
    expect((await liveProjects()).find((project) => project.id === projectId)?.title).toBe(
      `real-t3 project trial, renamed: ${stamp}`,
    );

    // A move: to an existing folder under the root; a missing one is refused before any send.
    const moved = path.join(root, "trial-moved");
    const missing = await refusal(
      write("project.meta.update", { projectId, workspaceRoot: path.join(root, "not-there") }),
    );
    expect(missing).toMatchObject({ code: "workspace_root_refused", details: { reason: "folder_missing" } });
    await mkdir(moved);
    await write("project.meta.update", { projectId, workspaceRoot: moved });
    expect((await liveProjects()).find((project) => project.id === projectId)?.workspaceRoot).toBe(moved);

    const deleted = await write("project.delete", { projectId });
    expect(deleted.result).toMatchObject({ projectId, deleted: true });
    expect((await liveProjects()).some((project) => project.id === projectId)).toBe(false);
  });

  it("refuses to delete a project holding a thread, naming the count, and deletes both with force", async () => {
    const folder = path.join(root, "with-thread");
    const created = await write("project.create", {
      title: `real-t3 project with a thread: ${stamp}`,
      workspaceRoot: folder,
      createWorkspaceRootIfMissing: true,
    });
    const projectId = created.ids.projectId as string;
    const threadId = randomUUID();
    const rpc = await T3RpcClient.connect({ baseUrl: URL_, token });
    try {
      await rpc.dispatchCommand({
        type: "thread.create",
        commandId: randomUUID(),
        threadId,
        projectId,
        title: `real-t3 thread in a project trial: ${stamp}`,
        createdBy: "user",
        creationSource: "web",
        modelSelection: { instanceId: "codex", model: "gpt-5.6-sol" },
        runtimeMode: "approval-required",
        interactionMode: "default",
        branch: null,
        worktreePath: null,
      });
    } finally {
      rpc.close();
    }
    const error = await refusal(write("project.delete", { projectId }));
    expect(error).toMatchObject({ code: "project_not_empty", details: { projectId, threadCount: 1 } });
    expect((await liveProjects()).some((project) => project.id === projectId)).toBe(true);

    const forced = await write("project.delete", { projectId, force: true });
    expect(forced.result).toMatchObject({ projectId, deleted: true });
    expect((await liveProjects()).some((project) => project.id === projectId)).toBe(false);
    const thread = await fetch(`${URL_}/api/orchestration/threads/${threadId}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    // 0.0.31 still answers a deleted thread's snapshot, marked deleted (the simulator answers 404).
    const snapshot = (await thread.json()) as { projection?: { thread?: { deletedAt?: string | null } } };
    expect(thread.status === 404 || typeof snapshot.projection?.thread?.deletedAt === "string").toBe(true);
  });
});

describe("provider readiness on a real T3 (ADR 0075)", () => {
  it("refuses a launch on a provider whose CLI is missing, sending nothing", async () => {
    const created = await write("project.create", {
      title: `real-t3 provider readiness: ${stamp}`,
      workspaceRoot: path.join(root, "readiness"),
      createWorkspaceRootIfMissing: true,
    });
    const projectId = created.ids.projectId as string;
    const threadsOf = async () => {
      const shell = await fetch(`${URL_}/api/orchestration/shell`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const body = (await shell.json()) as { threads: { projectId: string }[] };
      return body.threads.filter((thread) => thread.projectId === projectId).length;
    };
    // No Claude CLI where the server runs: 0.0.31 reports it `installed: false, status: "error"`.
    const error = await refusal(
      write("thread.launch", {
        projectId,
        title: `real-t3 launch on a missing provider: ${stamp}`,
        modelSelection: { instanceId: "claudeAgent", model: "claude-opus-5" },
        workspaceStrategy: { type: "root" },
        runtimeMode: "approval-required",
      }),
    );
    expect(error).toMatchObject({
      code: "guard_refused",
      details: { reason: "provider_not_ready", instanceId: "claudeAgent", status: "error" },
    });
    expect(await threadsOf()).toBe(0);
    await write("project.delete", { projectId, force: true });
  });
});
