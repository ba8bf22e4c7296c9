import { describe, expect, it } from "vitest";
import {
  ACTIONS,
  drivenThreadMode,
  prepareAction,
  requestedRuntimeMode,
  runtimeCeilingRefusal,
  runtimeCeilingWords,
  SAMPLE_INPUTS,
  threadModeCeilingRefusal,
} from "../../src/actions/index.js";
import { scopeVerdict } from "../../src/dispatch/index.js";

const KEY = "a".repeat(64);

describe("the runtime ceiling, from the catalogue's one declaration", () => {
  it("is declared by exactly the actions whose input chooses the mode an agent runs in", () => {
    const declared = ACTIONS.filter((entry) => entry.runtimeModeField !== undefined).map(
      (entry) => entry.action,
    );
    expect(declared.sort()).toEqual(["delegated_task.request", "thread.launch", "thread.runtime-mode.set"]);
    // Each sits in the run group, where the page shows the ceiling's words.
    for (const entry of ACTIONS.filter((candidate) => candidate.runtimeModeField !== undefined)) {
      expect(entry.group).toBe("run");
    }
  });

  it("fills an omitted launch mode with the sender's ceiling, else T3's own default, never leaving it open", () => {
    const { runtimeMode: _omitted, ...input } = SAMPLE_INPUTS["thread.launch"];
    const prepared = prepareAction("thread.launch", input, KEY);
    expect(requestedRuntimeMode("thread.launch", prepared.input)).toBe("full-access");
    expect(prepared.runtimeModeOmitted).toBe(true);
    // Whoever sends it fills its own ceiling instead (the gate: the lease's; ops: --max-runtime-mode).
    const capped = prepareAction("thread.launch", input, KEY, { omittedRuntimeMode: "approval-required" });
    expect(requestedRuntimeMode("thread.launch", capped.input)).toBe("approval-required");
    expect(capped.payload).toMatchObject({ kind: "launch", input: { runtimeMode: "approval-required" } });
    expect(
      requestedRuntimeMode("thread.pin", prepareAction("thread.pin", SAMPLE_INPUTS["thread.pin"], KEY).input),
    ).toBe(undefined);
  });

  it("refuses above the ceiling naming it, and allows at or below it", () => {
    const refusal = runtimeCeilingRefusal("thread.launch", "full-access", "approval-required");
    expect(refusal?.code).toBe("runtime_mode_above_lease");
    expect(refusal?.message).toContain("ceiling approval-required");
    expect(refusal?.details).toMatchObject({ requested: "full-access", ceiling: "approval-required" });
    expect(runtimeCeilingRefusal("thread.launch", "auto", "auto")).toBeNull();
    expect(runtimeCeilingRefusal("thread.launch", "approval-required", "full-access")).toBeNull();
  });

  it("is part of the lease's verdict before any project is looked at", () => {
    const scope = {
      scopeVersion: 2 as const,
      runtimeMode: "auto-accept-edits" as const,
      environments: [
        {
          alias: "alpha",
          environmentId: "env-alpha",
          label: "alpha",
          destination: "t3://env-alpha",
          projects: [{ id: "p1", name: "p1", directory: "/work/p1", workspaceRoots: ["/work/p1"] }],
          actions: ["thread.launch" as const],
          readProjectIds: [],
        },
      ],
    };
    const request = {
      stage: "admission" as const,
      leaseId: "lease",
      environmentId: "env-alpha",
      destination: "t3://env-alpha",
      action: "thread.launch" as const,
      projectIds: [],
    };
    expect(scopeVerdict(scope, { ...request, runtimeMode: "auto" })).toMatchObject({
      ok: false,
      code: "runtime_mode_above_lease",
      details: { ceiling: "auto-accept-edits" },
    });
    expect(
      scopeVerdict(scope, { ...request, projectIds: ["p1"], runtimeMode: "auto-accept-edits" }),
    ).toMatchObject({
      ok: true,
    });
  });

  it("says in plain words what full-access allows", () => {
    expect(runtimeCeilingWords("full-access", "laptop")).toBe("can run any command on laptop without asking");
  });

  it("takes the highest current mode among the driven threads, for an action that makes them run only", () => {
    const threads = [
      { id: "asks", runtimeMode: "approval-required" as const, activeRunId: null, queuedToStart: 0 },
      { id: "unattended", runtimeMode: "full-access" as const, activeRunId: null, queuedToStart: 0 },
      { id: "unknown", runtimeMode: null, activeRunId: null, queuedToStart: 0 },
    ];
    // No parsed input (the conditional send's admission): every listed thread counts.
    for (const action of ["thread.send", "queue.resume", "prepared-run.retry"]) {
      expect(drivenThreadMode(action, undefined, threads), action).toEqual({
        threadId: "unattended",
        mode: "full-access",
      });
    }
    expect(drivenThreadMode("thread.pin", undefined, threads)).toBeUndefined();
    // A mode T3 does not name counts as its default, the highest: the ceiling fails closed.
    expect(drivenThreadMode("queue.resume", undefined, [threads[2] as (typeof threads)[2]])).toEqual({
      threadId: "unknown",
      mode: "full-access",
      reported: false,
    });
    expect(
      threadModeCeilingRefusal(
        "queue.resume",
        { threadId: "unknown", mode: "full-access", reported: false },
        "approval-required",
      )?.message,
    ).toContain("whose mode T3 does not name (taken as full-access, T3's default)");
    // With an input, only the threads the action drives count.
    expect(drivenThreadMode("queue.resume", { threadId: "asks" }, threads)).toEqual({
      threadId: "asks",
      mode: "approval-required",
    });
  });
});
