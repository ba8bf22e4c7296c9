/**
 * Project admin through the engine (ADR 0074), against the simulator playing 0.0.31's
 * `projects.mutate`, with real folders: a project is created only under an allowed root (not
 * outside one, not through a symlink that leaves one, not when none is configured), a missing
 * folder only when asked; a rename lands; a move only to the folder its lease was bound to; a delete is refused while the project holds live or
 * archived threads (counted fresh, nothing sent) unless `force`; a lease for one project cannot
 * delete another; a repeat sends nothing; an answer lost after the send settles by reading.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bindProjectWrite } from "@t3-connector/test-support/bound-project-writes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveIds, SAMPLE_IDS } from "../../src/actions/index.js";
import { dispatchFailure, type Harness, LEASE_ID, leaseScope, startHarness } from "./support/harness.js";

let harness: Harness;
let base: string;
let allowed: string;
let outside: string;
const OTHER_PROJECT = "7c0ffee0-0000-4000-8000-000000000001";

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "t3c-projects-")));
  allowed = join(base, "allowed");
  outside = join(base, "outside");
  await mkdir(join(allowed, "existing"), { recursive: true });
  await mkdir(join(allowed, "inner"), { recursive: true });
  await mkdir(outside, { recursive: true });
  await symlink(outside, join(allowed, "escape"));
  await symlink(join(allowed, "inner"), join(allowed, "alias-inside"));
  harness = await startHarness({
    aliases: ["roots", "bare"],
    projectRoots: { roots: [allowed] },
    seed: (env) => {
      if (env.alias !== "roots") return;
      env.model.addProject({ id: OTHER_PROJECT, title: "other", workspaceRoot: join(allowed, "inner") });
      env.model.addThread({ id: "th-live", projectId: OTHER_PROJECT, state: "completed" });
      env.model.addThread({
        id: "th-archived",
        projectId: OTHER_PROJECT,
        state: "completed",
        archived: true,
      });
    },
  });
  harness.lease.scope = leaseScope(
    harness.sim.environments.map((env) => ({
      alias: env.alias,
      environmentId: env.environmentId,
      projects: [
        { id: SAMPLE_IDS.projectId, directory: SAMPLE_IDS.workspaceRoot },
        { id: OTHER_PROJECT, directory: join(allowed, "inner") },
      ],
    })),
  );
});

afterAll(async () => {
  await harness?.close();
  await rm(base, { recursive: true, force: true });
});

/** Writes as a client whose lease names this exact project write, as the page showed it (ADR 0074). */
function write(environment: string, operationId: string, action: string, input: unknown, threadCount = 0) {
  harness.lease.scope = bindProjectWrite(
    harness.lease.scope,
    harness.env(environment).environmentId,
    action,
    input,
    threadCount,
  );
  return unbound(environment, operationId, action, input);
}

/** Writes with the lease as it is: a hostile client's write the page never named. */
function unbound(environment: string, operationId: string, action: string, input: unknown) {
  return harness.dispatcher.dispatch({ leaseId: LEASE_ID, environment, operationId, action, input });
}

const env = () => harness.env("roots");

function liveProject(id: string) {
  const listed = harness.env("roots").model.httpProjects();
  if (listed.kind !== "ok") throw new Error("no project list");
  return (
    listed.body as {
      projects: { id: string; title: string; workspaceRoot: string; deletedAt: string | null }[];
    }
  ).projects.find((project) => project.id === id && project.deletedAt === null);
}

describe("project.create", () => {
  it("creates a project over a folder under an allowed root, once", async () => {
    const input = { title: "new work", workspaceRoot: join(allowed, "existing") };
    const done = await write("roots", "op-create", "project.create", input);
    const projectId = done.derivedIds.projectId as string;
    expect(done).toMatchObject({ state: "completed", receipt: { projectId, deleted: false } });
    expect(liveProject(projectId)).toMatchObject({ title: "new work" });
    const again = await write("roots", "op-create", "project.create", input);
    expect(again).toMatchObject({ state: "completed", replayed: true });
    expect(harness.framesFor(done.derivedIds.commandId as string)).toBe(1);
  });

  it("follows a symlink that stays inside the root", async () => {
    const done = await write("roots", "op-inside-link", "project.create", {
      title: "through an inner link",
      workspaceRoot: join(allowed, "alias-inside", "deeper"),
      createWorkspaceRootIfMissing: true,
    });
    expect(done.state).toBe("completed");
  });

  it("refuses, sending nothing, a folder outside every root, through a symlink that leaves one, or missing", async () => {
    const before = harness.writeFrames.length;
    const cases: [string, string, Record<string, unknown>][] = [
      ["op-outside", "outside_project_roots", { workspaceRoot: outside }],
      [
        "op-escape",
        "symlink_leaves_root",
        { workspaceRoot: join(allowed, "escape", "x"), createWorkspaceRootIfMissing: true },
      ],
      ["op-missing", "folder_missing", { workspaceRoot: join(allowed, "not-yet") }],
    ];
    for (const [operationId, reason, fields] of cases) {
      const error = await dispatchFailure(
        write("roots", operationId, "project.create", { title: "refused", ...fields }),
      );
      expect(error.code, operationId).toBe("workspace_root_refused");
      expect(error.details?.reason, operationId).toBe(reason);
      expect(error.details).toMatchObject({ state: "refused", sent: false });
    }
    // A path that is not absolute and normalised can never be bound: the lease refuses it first.
    for (const workspaceRoot of [`${allowed}/../outside`, "allowed/existing"]) {
      const error = await dispatchFailure(
        unbound("roots", `op-${workspaceRoot}`, "project.create", { title: "x", workspaceRoot }),
      );
      expect(error.code, workspaceRoot).toBe("scope_denied");
    }
    expect(harness.writeFrames.length).toBe(before);
    expect(existsSync(join(outside, "x"))).toBe(false);
  });

  it("makes a missing folder under the root when asked", async () => {
    const folder = join(allowed, "made", "here");
    const done = await write("roots", "op-make", "project.create", {
      title: "made",
      workspaceRoot: folder,
      createWorkspaceRootIfMissing: true,
    });
    expect(done.state).toBe("completed");
    expect(existsSync(folder)).toBe(true);
  });

  it("refuses every folder where no projectRoots are configured", async () => {
    const error = await dispatchFailure(
      write("bare", "op-bare", "project.create", { title: "x", workspaceRoot: join(allowed, "existing") }),
    );
    expect(error).toMatchObject({ code: "workspace_root_refused", details: { reason: "no_project_roots" } });
  });
});

describe("project.meta.update and project.delete", () => {
  it("renames a project (sent as 0.0.31's project.update)", async () => {
    const done = await write("roots", "op-rename", "project.meta.update", {
      projectId: OTHER_PROJECT,
      title: "other, renamed",
    });
    expect(done.state).toBe("completed");
    expect(liveProject(OTHER_PROJECT)).toMatchObject({ title: "other, renamed" });
    expect(harness.env("roots").model.receivedCommands.at(-1)).toMatchObject({ type: "project.update" });
  });

  it("moves a project only to the folder its lease was bound to; another folder, or the bound one turned into a symlink that leaves the root, is refused with nothing sent", async () => {
    const named = join(allowed, "moved-to");
    const swapped = join(allowed, "swapped");
    await mkdir(named);
    await mkdir(join(allowed, "elsewhere"));
    await mkdir(swapped);
    const scoped = harness.lease.scope;
    // The page named two moves, each folder walked then: both existed inside the root.
    harness.lease.scope = bindProjectWrite(
      bindProjectWrite(scoped, env().environmentId, "project.meta.update", {
        projectId: OTHER_PROJECT,
        workspaceRoot: named,
      }),
      env().environmentId,
      "project.meta.update",
      { projectId: OTHER_PROJECT, workspaceRoot: swapped },
    );
    try {
      const before = harness.writeFrames.length;
      const other = await dispatchFailure(
        unbound("roots", "op-move-elsewhere", "project.meta.update", {
          projectId: OTHER_PROJECT,
          workspaceRoot: join(allowed, "elsewhere"),
        }),
      );
      expect(other.code).toBe("scope_denied");
      expect(other.message).toMatch(/not approved for a move of project .* to .*elsewhere/);
      expect(other.details).toMatchObject({ recorded: false });
      // After the approval a local process swaps the named folder for a symlink out of the root.
      await rm(swapped, { recursive: true });
      await symlink(outside, swapped);
      const escaped = await dispatchFailure(
        unbound("roots", "op-move-swapped", "project.meta.update", {
          projectId: OTHER_PROJECT,
          workspaceRoot: swapped,
        }),
      );
      expect(escaped).toMatchObject({
        code: "workspace_root_refused",
        details: { reason: "symlink_leaves_root", state: "refused", sent: false },
      });
      expect(harness.writeFrames.length).toBe(before);
      const done = await unbound("roots", "op-move-named", "project.meta.update", {
        projectId: OTHER_PROJECT,
        workspaceRoot: named,
      });
      expect(done.state).toBe("completed");
      expect(liveProject(OTHER_PROJECT)).toMatchObject({ workspaceRoot: named });
      expect(harness.writeFrames.length).toBe(before + 1);
    } finally {
      harness.lease.scope = scoped;
    }
  });

  it("refuses to delete a project holding a live and an archived thread, naming the fresh count, then deletes it with force", async () => {
    const before = harness.writeFrames.length;
    const refused = await dispatchFailure(
      write("roots", "op-delete", "project.delete", { projectId: OTHER_PROJECT }),
    );
    expect(refused).toMatchObject({
      code: "project_not_empty",
      details: { projectId: OTHER_PROJECT, threadCount: 2, state: "refused", sent: false },
    });
    expect(harness.writeFrames.length).toBe(before);
    // The page named one thread; the project holds two now: nothing is deleted.
    const scoped = harness.lease.scope;
    const forcedInput = { projectId: OTHER_PROJECT, force: true };
    const grown = await dispatchFailure(write("roots", "op-delete-grown", "project.delete", forcedInput, 1));
    expect(grown).toMatchObject({
      code: "project_not_empty",
      details: {
        reason: "threads_added_since_approval",
        threadCount: 2,
        approvedThreadCount: 1,
        sent: false,
      },
    });
    expect(harness.writeFrames.length).toBe(before);
    harness.lease.scope = scoped;
    const forced = await write("roots", "op-delete-force", "project.delete", forcedInput, 2);
    expect(forced).toMatchObject({
      state: "completed",
      receipt: { projectId: OTHER_PROJECT, deleted: true },
    });
    expect(liveProject(OTHER_PROJECT)).toBeUndefined();
    expect(harness.env("roots").model.httpThread("th-live")).toMatchObject({ status: 404 });
  });

  it("a lease for one project cannot rename or delete another", async () => {
    const onlySample = leaseScope([
      {
        alias: "roots",
        environmentId: harness.env("roots").environmentId,
        projects: [{ id: SAMPLE_IDS.projectId, directory: SAMPLE_IDS.workspaceRoot }],
      },
    ]);
    const scoped = harness.lease.scope;
    harness.lease.scope = onlySample;
    try {
      const env = harness.env("roots");
      env.model.addProject({ id: "b-project", title: "B", workspaceRoot: join(allowed, "existing") });
      for (const [action, input] of [
        ["project.delete", { projectId: "b-project", force: true }],
        ["project.meta.update", { projectId: "b-project", title: "taken" }],
      ] as const) {
        const error = await dispatchFailure(write("roots", `op-${action}-b`, action, input));
        expect(error.code, action).toBe("scope_denied");
      }
    } finally {
      harness.lease.scope = scoped;
    }
  });

  it("refuses a create or a forced delete the lease was not bound to, before any read, sending nothing", async () => {
    const asked = {
      title: "asked",
      workspaceRoot: join(allowed, "bound"),
      createWorkspaceRootIfMissing: true,
    };
    env().model.addProject({ id: "c-project", title: "C", workspaceRoot: join(allowed, "existing") });
    env().model.addThread({ id: "th-c", projectId: "c-project", state: "completed" });
    harness.lease.scope = leaseScope(
      harness.sim.environments.map((sim) => ({
        alias: sim.alias,
        environmentId: sim.environmentId,
        projects: [
          { id: SAMPLE_IDS.projectId, directory: SAMPLE_IDS.workspaceRoot },
          { id: "c-project", directory: join(allowed, "existing") },
        ],
        ...(sim.alias === "roots"
          ? {
              projectWrites: [
                {
                  action: "project.create",
                  workspaceRoot: asked.workspaceRoot,
                  createWorkspaceRootIfMissing: true,
                  wouldCreate: true,
                },
              ] as const,
            }
          : {}),
      })),
    ) as typeof harness.lease.scope;
    const before = harness.writeFrames.length;
    const hostile: [string, string, Record<string, unknown>][] = [
      ["op-other-folder", "project.create", { title: "asked", workspaceRoot: join(allowed, "inner") }],
      ["op-other-flag", "project.create", { ...asked, createWorkspaceRootIfMissing: false }],
      ["op-escape-unbound", "project.create", { title: "x", workspaceRoot: outside }],
      ["op-force-unbound", "project.delete", { projectId: "c-project", force: true }],
    ];
    for (const [operationId, action, input] of hostile) {
      const error = await dispatchFailure(unbound("roots", operationId, action, input));
      expect(error.code, operationId).toBe("scope_denied");
      expect(error.details, operationId).toMatchObject({ recorded: false });
    }
    expect(harness.writeFrames.length).toBe(before);
    expect(liveProject("c-project")).toBeDefined();
    // The bound folder itself still passes (the same input, a new operation).
    const done = await unbound("roots", "op-bound", "project.create", asked);
    expect(done.state).toBe("completed");
  });

  it("settles a create whose answer was lost by reading the project list", async () => {
    const env = harness.env("roots");
    env.faults.set({ dropSocketAfterDispatch: true });
    const lost = await dispatchFailure(
      write("roots", "op-lost", "project.create", {
        title: "lost answer",
        workspaceRoot: join(allowed, "lost"),
        createWorkspaceRootIfMissing: true,
      }),
    ).finally(() => env.faults.clear());
    expect(lost.code).toBe("reconciliation_required");
    const key = harness.dispatcher.operationKey("roots", "op-lost");
    const settled = await harness.dispatcher.reconcile(key);
    expect(settled).toMatchObject({
      state: "completed",
      settled: true,
      observation: { method: "created_project_listed", found: true },
    });
    expect(harness.framesFor(deriveIds(key, "project.create").commandId)).toBe(1);
  });
});
