/**
 * Through the bridge and the real gate relay over the simulator (ADR 0074): a threads batch snoozes
 * five threads under one lease, each sent once, and the same batchId again sends nothing; a project
 * is created under the environment's allowed root and refused outside it (nothing sent); a project
 * holding threads is not deleted without force, and with force it is gone.
 */
import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, realpath, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bindProjectWrite } from "@t3-connector/test-support/bound-project-writes";
import { type GateHarness, startGateHarness } from "@t3-connector/test-support/gate-harness";
import { LEASED_PROJECT, startSimWorld } from "@t3-connector/test-support/sim-world";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BridgeSession, connectBridge, structured, textOf } from "../support/bridge-client.js";

const THREADS = Array.from({ length: 5 }, () => randomUUID());
const UNTIL = "2099-03-04T05:06:07.000Z";
let h: GateHarness;
let bridge: BridgeSession;
let folders: string;

beforeAll(async () => {
  folders = await realpath(await mkdtemp(join(tmpdir(), "t3c-bridge-projects-")));
  await mkdir(join(folders, "allowed"));
  await mkdir(join(folders, "outside"));
  await symlink(join(folders, "outside"), join(folders, "allowed", "escape"));
  const world = await startSimWorld();
  for (const environment of world.config.environments) environment.projectRoots = [join(folders, "allowed")];
  for (const id of THREADS)
    world.env("alpha").model.addThread({ id, projectId: LEASED_PROJECT, state: "completed" });
  h = await startGateHarness({ world });
  bridge = await connectBridge({ port: h.gate.port, stateDir: h.world.stateDir });
});

afterAll(async () => {
  await bridge?.close();
  await h?.close();
  await h?.world.close();
  await rm(folders, { recursive: true, force: true });
});

describe("t3_escrever_threads_batch through the bridge", () => {
  it("snoozes five threads, each sent once, and a repeat of the batchId sends nothing", async () => {
    const leaseId = await h.grantLease({ environments: ["alpha"] });
    const alpha = h.world.env("alpha");
    const before = alpha.model.receivedCommands.length;
    const args = {
      leaseId,
      environment: "alpha",
      operationId: "batch-call-1",
      input: { action: "snooze", threads: THREADS, until: UNTIL, batchId: "friday" },
    };
    const done = await bridge.call("t3_escrever_threads_batch", args);
    expect(done.isError, textOf(done)).toBeFalsy();
    expect(structured(done)).toMatchObject({
      state: "completed",
      batchId: "friday",
      summary: { completed: 5 },
    });
    const sent = alpha.model.receivedCommands.slice(before);
    expect(sent.map((command) => command.type)).toEqual(THREADS.map(() => "thread.snooze"));
    expect(new Set(sent.map((command) => (command.payload as { threadId: string }).threadId))).toEqual(
      new Set(THREADS),
    );
    const again = await bridge.call("t3_escrever_threads_batch", { ...args, operationId: "batch-call-2" });
    expect(structured(again)).toMatchObject({ state: "completed", summary: { completed: 5 } });
    expect((structured(again).items as { replayed: boolean }[]).every((item) => item.replayed)).toBe(true);
    expect(alpha.model.receivedCommands.length).toBe(before + 5);
  });
});

describe("project writes through the bridge", () => {
  const projects = () => {
    const listed = h.world.env("alpha").model.httpProjects();
    if (listed.kind !== "ok") throw new Error("no projects");
    return (listed.body as { projects: { id: string; title: string; workspaceRoot: string }[] }).projects;
  };

  it("creates a project under the allowed root, and refuses one outside it or through a symlink, sending nothing", async () => {
    const alpha = h.world.env("alpha");
    const input = (operationId: string, workspaceRoot: string) => ({
      title: `project ${operationId}`,
      workspaceRoot,
      createWorkspaceRootIfMissing: true,
    });
    const named = [
      ["p-outside", join(folders, "outside", "x")],
      ["p-escape", join(folders, "allowed", "escape", "x")],
      ["p-inside", join(folders, "allowed", "new-work")],
    ] as const;
    // As if the page had named each folder: the walk at the send still refuses those that leave the root.
    const leaseId = await h.grantLease({
      environments: ["alpha"],
      bind: (scope) =>
        named.reduce(
          (bound, [operationId, folder]) =>
            bindProjectWrite(bound, alpha.environmentId, "project.create", input(operationId, folder)),
          scope,
        ),
    });
    const create = (operationId: string, workspaceRoot: string) =>
      bridge.call("t3_escrever_project_create", {
        leaseId,
        environment: "alpha",
        operationId,
        input: input(operationId, workspaceRoot),
      });
    const before = alpha.model.receivedCommands.length;
    for (const [operationId, folder] of [
      ["p-outside", join(folders, "outside", "x")],
      ["p-escape", join(folders, "allowed", "escape", "x")],
    ] as const) {
      const refused = await create(operationId, folder);
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/^workspace_root_refused: /);
    }
    expect(alpha.model.receivedCommands.length).toBe(before);
    const created = await create("p-inside", join(folders, "allowed", "new-work"));
    expect(created.isError, textOf(created)).toBeFalsy();
    const projectId = (structured(created).receipt as { projectId: string }).projectId;
    expect(projects().find((project) => project.id === projectId)).toMatchObject({
      title: "project p-inside",
      workspaceRoot: join(folders, "allowed", "new-work"),
    });
  });

  it("refuses to delete the leased project while it holds threads, naming how many; with force it is gone", async () => {
    const beta = h.world.env("beta");
    const leaseId = await h.grantLease({
      environments: ["beta"],
      bind: (scope) =>
        bindProjectWrite(
          scope,
          beta.environmentId,
          "project.delete",
          { projectId: LEASED_PROJECT, force: true },
          // The idle and the running thread: the count the page would have named.
          2,
        ),
    });
    const remove = (operationId: string, force?: true) =>
      bridge.call("t3_escrever_project_delete", {
        leaseId,
        environment: "beta",
        operationId,
        input: { projectId: LEASED_PROJECT, ...(force ? { force } : {}) },
      });
    const refused = await remove("d-1");
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^project_not_empty: project .* still holds \d+ threads?/);
    const forced = await remove("d-2", true);
    expect(forced.isError, textOf(forced)).toBeFalsy();
    const listed = beta.model.httpProjects();
    expect(
      listed.kind === "ok" &&
        (listed.body as { projects: { id: string }[] }).projects.some(
          (project) => project.id === LEASED_PROJECT,
        ),
    ).toBe(false);
  });
});
