import { mkdir, mkdtemp, realpath, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemClock } from "@t3-connector/core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SAMPLE_IDS } from "../../src/actions/index.js";
import { createDispatcher } from "../../src/dispatch/index.js";
import {
  CHANNEL,
  commandsSince,
  dispatchFailure,
  type Harness,
  LEASE_ID,
  leaseScope,
  startHarness,
} from "./support/harness.js";

const T = SAMPLE_IDS.threadId;
const OTHER_PROJECT = "9a1f2b3c-0000-4000-8000-000000000001";
const OTHER_THREAD = "9a1f2b3c-0000-4000-8000-0000000000aa";
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    aliases: ["closing", "scope", "idle", "running", "models", "paths", "missing"],
    seed: (env) => {
      const state = env.alias === "running" ? "running" : "completed";
      env.model.addThread({ id: T, projectId: SAMPLE_IDS.projectId, state });
      if (env.alias === "scope") {
        env.model.addProject({ id: OTHER_PROJECT, title: "other", workspaceRoot: "/srv/projects/other" });
        env.model.addThread({ id: OTHER_THREAD, projectId: OTHER_PROJECT });
      }
    },
  });
});

afterEach(() => {
  harness.lease.open = true;
  harness.lease.closeAt = undefined;
});

afterAll(async () => {
  await harness?.close();
});

function write(environment: string, operationId: string, action: string, input: unknown) {
  return harness.dispatcher.dispatch({ leaseId: LEASE_ID, environment, operationId, action, input });
}

async function recordOf(environment: string, operationId: string) {
  return harness.journal.get(harness.dispatcher.operationKey(environment, operationId));
}

describe("the lease", () => {
  it("sends nothing when the lease ends while the write waits for its send", async () => {
    const env = harness.env("closing");
    const before = env.model.receivedCommands.length;
    harness.lease.closeAt = "send";
    const error = await dispatchFailure(write("closing", "op-close", "thread.pin", { threadId: T }));
    expect(error.code).toBe("lease_closed");
    expect(error.details).toMatchObject({ state: "refused", sent: false });
    expect(commandsSince(env, before)).toEqual([]);
    // The lease ended once the record was durably `uncertain` (its ids recorded), right before the
    // send: the engine's final check read that it ended, and the record says nothing was sent.
    expect(await recordOf("closing", "op-close")).toMatchObject({
      state: "refused",
      error: { code: "lease_closed" },
      derivedIds: expect.objectContaining({ commandId: expect.any(String) }),
    });

    harness.lease.open = true;
    harness.lease.closeAt = undefined;
    const replay = await dispatchFailure(write("closing", "op-close", "thread.pin", { threadId: T }));
    expect(replay.details).toMatchObject({ state: "refused", replayed: true });
    expect(commandsSince(env, before)).toEqual([]);
  });

  it("refuses without a record an environment, a project or an action the lease does not cover", async () => {
    const scope = harness.lease.scope;
    const env = harness.env("scope");
    const before = env.model.receivedCommands.length;
    try {
      harness.lease.scope = leaseScope([
        { alias: "closing", environmentId: harness.env("closing").environmentId },
      ]);
      const outside = await dispatchFailure(write("scope", "op-env", "thread.pin", { threadId: T }));
      expect(outside.code).toBe("environment_not_in_lease");

      harness.lease.scope = leaseScope([
        { alias: "scope", environmentId: env.environmentId, actions: ["thread.pin"] },
      ]);
      const project = await dispatchFailure(
        write("scope", "op-project", "thread.pin", { threadId: OTHER_THREAD }),
      );
      expect(project.code).toBe("scope_denied");
      const action = await dispatchFailure(write("scope", "op-action", "thread.archive", { threadId: T }));
      expect(action.code).toBe("scope_denied");

      for (const operationId of ["op-env", "op-project", "op-action"]) {
        expect(await recordOf("scope", operationId)).toBeUndefined();
      }
      expect(commandsSince(env, before)).toEqual([]);
    } finally {
      harness.lease.scope = scope;
    }
  });
});

describe("refusals", () => {
  it("records T3's typed refusal as refused with its tag, keeps the lease open and never resends", async () => {
    const env = harness.env("idle");
    const before = env.model.receivedCommands.length;
    const steer = {
      threadId: T,
      text: "Steer an idle thread.",
      clientRequestId: "op-steer",
      delivery: "steer_active",
      targetRunId: SAMPLE_IDS.runId,
    };
    const error = await dispatchFailure(write("idle", "op-steer", "thread.send", steer));
    expect(error.code).toBe("t3_refused");
    expect(error.t3?.tag).toBe("OrchestrationV2DispatchCommandError");
    expect(error.details).toMatchObject({ state: "refused", sent: true });
    expect(harness.lease.open).toBe(true);
    expect(harness.lease.uncertainSends).toEqual([]);
    expect(await recordOf("idle", "op-steer")).toMatchObject({
      state: "refused",
      error: { code: "t3_refused/OrchestrationV2DispatchCommandError" },
    });

    const replay = await dispatchFailure(write("idle", "op-steer", "thread.send", steer));
    expect(replay.code).toBe("t3_refused");
    expect(replay.t3?.tag).toBe("OrchestrationV2DispatchCommandError");
    expect(replay.details).toMatchObject({ replayed: true });
    expect(commandsSince(env, before)).toEqual([]);
  });

  it("refuses a settle on a running thread unless allowActiveRun is set", async () => {
    const env = harness.env("running");
    const before = env.model.receivedCommands.length;
    const error = await dispatchFailure(write("running", "op-settle", "thread.settle", { threadId: T }));
    expect(error.code).toBe("guard_refused");
    expect(error.details).toMatchObject({ reason: "thread_run_active", state: "refused", sent: false });
    expect(commandsSince(env, before)).toEqual([]);
    expect(await recordOf("running", "op-settle")).toMatchObject({
      state: "refused",
      error: { code: "guard_refused/thread_run_active" },
    });

    const forced = await write("running", "op-settle-forced", "thread.settle", {
      threadId: T,
      allowActiveRun: true,
    });
    expect(forced.state).toBe("completed");
    expect(commandsSince(env, before).map((command) => command.type)).toEqual(["thread.settle"]);
  });

  it("refuses a model the environment's fresh server.getConfig does not offer", async () => {
    const env = harness.env("models");
    const before = env.model.receivedCommands.length;
    const error = await dispatchFailure(
      write("models", "op-model", "provider.switch", {
        threadId: T,
        modelSelection: { instanceId: "claudeAgent", model: "claude-imaginary-9" },
      }),
    );
    expect(error.code).toBe("guard_refused");
    expect(error.details).toMatchObject({ reason: "provider_model_unavailable", state: "refused" });
    expect(commandsSince(env, before)).toEqual([]);
  });

  it("refuses a workspace path outside the approved roots, and one it cannot verify", async () => {
    const env = harness.env("paths");
    const before = env.model.receivedCommands.length;
    const outside = await dispatchFailure(
      write("paths", "op-path-outside", "thread.metadata.update", { threadId: T, worktreePath: "/etc" }),
    );
    expect(outside.details).toMatchObject({ reason: "workspace_scope_denied", state: "refused" });

    // The default verifier runs realpath on this machine, where the approved root does not exist.
    const localDispatcher = harness.lease.wrap(
      createDispatcher({
        registry: harness.registry,
        journal: harness.journal,
        clock: systemClock,
        channel: `${CHANNEL}-local`,
      }),
    );
    const unverified = await dispatchFailure(
      localDispatcher.dispatch({
        leaseId: LEASE_ID,
        environment: "paths",
        operationId: "op-path-unverified",
        action: "thread.metadata.update",
        input: { threadId: T, worktreePath: SAMPLE_IDS.workspaceRoot },
      }),
    );
    expect(unverified.details).toMatchObject({ reason: "workspace_verification_required", state: "refused" });
    expect(commandsSince(env, before)).toEqual([]);
  });

  it("verifies an approved root with realpath on this machine and refuses one that is a symlink", async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), "t3c-workspace-")));
    const scope = harness.lease.scope;
    try {
      const real = join(root, "real");
      const link = join(root, "link");
      await mkdir(real);
      await symlink(real, link);
      const env = harness.env("paths");
      harness.lease.scope = leaseScope([
        {
          alias: "paths",
          environmentId: env.environmentId,
          projects: [{ id: SAMPLE_IDS.projectId, directory: real }],
        },
      ]);
      // Approve the symlink path instead: it passes the approved-root check but not realpath.
      const linkScope = leaseScope([
        {
          alias: "paths",
          environmentId: env.environmentId,
          projects: [{ id: SAMPLE_IDS.projectId, directory: link }],
        },
      ]);
      const local = harness.lease.wrap(
        createDispatcher({
          registry: harness.registry,
          journal: harness.journal,
          clock: systemClock,
          channel: `${CHANNEL}-realpath`,
        }),
      );
      const update = (operationId: string, worktreePath: string) =>
        local.dispatch({
          leaseId: LEASE_ID,
          environment: "paths",
          operationId,
          action: "thread.metadata.update",
          input: { threadId: T, worktreePath },
        });
      expect((await update("op-real-root", real)).state).toBe("completed");
      harness.lease.scope = linkScope;
      const viaLink = await dispatchFailure(update("op-link-root", link));
      expect(viaLink.details).toMatchObject({ reason: "workspace_verification_required", state: "refused" });
    } finally {
      harness.lease.scope = scope;
      await rm(root, { recursive: true, force: true });
    }
  });

  it("refuses a launch into a leased project that T3 no longer has", async () => {
    const env = harness.env("missing");
    const ghostProject = "9a1f2b3c-0000-4000-8000-0000000000ff";
    const scope = harness.lease.scope;
    try {
      harness.lease.scope = leaseScope([
        {
          alias: "missing",
          environmentId: env.environmentId,
          projects: [
            { id: SAMPLE_IDS.projectId, directory: SAMPLE_IDS.workspaceRoot },
            { id: ghostProject, directory: "/srv/projects/ghost" },
          ],
        },
      ]);
      const before = env.model.receivedCommands.length;
      const error = await dispatchFailure(
        write("missing", "op-ghost-launch", "thread.launch", {
          projectId: ghostProject,
          title: "into nothing",
          modelSelection: { instanceId: "codex", model: "gpt-5.6-sol" },
          workspaceStrategy: { type: "root" },
        }),
      );
      expect(error.details).toMatchObject({ reason: "project_not_found", state: "refused", sent: false });
      expect(commandsSince(env, before)).toEqual([]);
    } finally {
      harness.lease.scope = scope;
    }
  });

  it("records a write to a thread that does not exist as refused thread_not_found", async () => {
    const env = harness.env("missing");
    const before = env.model.receivedCommands.length;
    const ghost = "00000000-0000-4000-8000-00000000dead";
    const error = await dispatchFailure(write("missing", "op-ghost", "thread.pin", { threadId: ghost }));
    expect(error.code).toBe("thread_not_found");
    expect(await recordOf("missing", "op-ghost")).toMatchObject({
      state: "refused",
      error: { code: "thread_not_found" },
    });
    expect(commandsSince(env, before)).toEqual([]);
  });
});
