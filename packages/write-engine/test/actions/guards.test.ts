import type { ConnectorError } from "@t3-connector/core";
import { describe, expect, it } from "vitest";
import {
  checkLocalGuards,
  type GuardContext,
  getAction,
  SAMPLE_INPUTS,
  type ThreadStateView,
} from "../../src/actions/index.js";

const T = "0798fcf8-49d7-4821-812e-7cdce591eed0";
const IDLE: ThreadStateView = { status: "idle", activeRunId: null, pendingRuntimeRequest: null };
const RUNNING: ThreadStateView = { status: "running", activeRunId: "run-1", pendingRuntimeRequest: null };

function context(thread: ThreadStateView | undefined, extra: Partial<GuardContext> = {}): GuardContext {
  return { operationId: "op-sample-0001", thread: () => thread, approvedWorkspaceRoots: [], ...extra };
}

function check(action: string, input: unknown, ctx: GuardContext): ConnectorError | null {
  const entry = getAction(action);
  return checkLocalGuards(entry.guards, entry.inputSchema.parse(input), ctx);
}

describe("settle and snooze guards", () => {
  const snooze = { threadId: T, snoozedUntil: "2026-12-03T13:01:50.660Z" };

  it("let an idle thread through", () => {
    expect(check("thread.settle", { threadId: T }, context(IDLE))).toBeNull();
    expect(check("thread.snooze", snooze, context(IDLE))).toBeNull();
  });

  it("refuse a thread with a run in flight, naming the override", () => {
    for (const [action, input] of [
      ["thread.settle", { threadId: T }],
      ["thread.snooze", snooze],
    ] as const) {
      const refusal = check(action, input, context(RUNNING));
      expect(refusal?.code).toBe("guard_refused");
      expect(refusal?.details).toMatchObject({
        reason: "thread_run_active",
        overrideField: "allowActiveRun",
      });
    }
    const queued = { status: "queued", activeRunId: null, pendingRuntimeRequest: null };
    expect(check("thread.settle", { threadId: T }, context(queued))?.details?.reason).toBe(
      "thread_run_active",
    );
  });

  it("refuse a pending request unless allowPendingRequest is set", () => {
    const waiting = { ...IDLE, pendingRuntimeRequest: { id: "req-1", kind: "command" } };
    expect(check("thread.settle", { threadId: T }, context(waiting))?.details?.reason).toBe(
      "thread_pending_request",
    );
    expect(check("thread.settle", { threadId: T, allowPendingRequest: true }, context(waiting))).toBeNull();
  });

  it("pass a running thread only with allowActiveRun: true", () => {
    expect(check("thread.settle", { threadId: T, allowActiveRun: true }, context(RUNNING))).toBeNull();
    expect(check("thread.settle", { threadId: T, allowActiveRun: false }, context(RUNNING))).not.toBeNull();
  });

  it("refuse a thread the fresh shell does not have", () => {
    expect(check("thread.settle", { threadId: T }, context(undefined))?.code).toBe("thread_not_found");
  });
});

describe("thread.send guards", () => {
  const send = SAMPLE_INPUTS["thread.send"];

  it("refuses a clientRequestId that differs from operationId", () => {
    const refusal = check("thread.send", send, context(RUNNING, { operationId: "op-other" }));
    expect(refusal?.code).toBe("invalid_input");
    expect(refusal?.details?.reason).toBe("request_id_mismatch");
    expect(check("thread.send", send, context(RUNNING))).toBeNull();
  });

  it("refuses a thread waiting on a question and names the answer tool", () => {
    const waiting = { ...RUNNING, pendingRuntimeRequest: { id: "q-1", kind: "user_input" } };
    const refusal = check("thread.send", send, context(waiting));
    expect(refusal?.code).toBe("guard_refused");
    expect(refusal?.details).toMatchObject({
      reason: "thread_pending_request",
      requestId: "q-1",
      answerAction: "runtime-request.answer",
      answerTool: "t3_escrever_runtime_request_answer",
      responseField: "answers",
    });
    expect(refusal?.message).toContain("t3_escrever_runtime_request_answer");
  });

  it("refuses a thread waiting on an approval and names the approve tool", () => {
    const waiting = { ...RUNNING, pendingRuntimeRequest: { id: "a-1", kind: "file-change" } };
    expect(check("thread.send", send, context(waiting))?.details).toMatchObject({
      answerTool: "t3_escrever_runtime_request_approve",
      responseField: "decision",
    });
  });

  it("refuses a request no tool answers and says to inspect it in T3", () => {
    const waiting = { ...RUNNING, pendingRuntimeRequest: { id: "x-1", kind: "auth_refresh" } };
    const refusal = check("thread.send", send, context(waiting));
    expect(refusal?.details?.answerTool).toBeNull();
    expect(refusal?.message).toContain("inspect it in T3");
  });

  it("has no override field for the pending-request refusal", () => {
    expect(
      getAction("thread.send").inputSchema.safeParse({ ...send, allowPendingRequest: true }).success,
    ).toBe(false);
  });
});

describe("workspace and model-selection guards", () => {
  const launch = SAMPLE_INPUTS["thread.launch"];

  it("lets an approved, normalised workspace path through and refuses others", () => {
    const approved = context(IDLE, { approvedWorkspaceRoots: ["/srv/projects/fixture"] });
    expect(check("thread.launch", launch, approved)).toBeNull();
    const other = check(
      "thread.launch",
      launch,
      context(IDLE, { approvedWorkspaceRoots: ["/srv/projects/other"] }),
    );
    expect(other?.code).toBe("scope_denied");
    expect(other?.details?.reason).toBe("workspace_scope_denied");
    const sneaky = {
      ...launch,
      workspaceStrategy: { type: "existing_worktree", worktreePath: "/srv/projects/fixture/../x" },
    };
    expect(
      check(
        "thread.launch",
        sneaky,
        context(IDLE, { approvedWorkspaceRoots: ["/srv/projects/fixture/../x"] }),
      ),
    ).not.toBeNull();
  });

  it("skips the workspace guard where no path is given", () => {
    const root = { ...launch, workspaceStrategy: { type: "root" } };
    expect(check("thread.launch", root, context(IDLE))).toBeNull();
    expect(check("thread.metadata.update", { threadId: T, worktreePath: null }, context(IDLE))).toBeNull();
    expect(
      check("thread.metadata.update", { threadId: T, worktreePath: "/tmp/x" }, context(IDLE))?.code,
    ).toBe("scope_denied");
  });

  it("declares a fresh server.getConfig check on exactly the model-selection actions", () => {
    const withModel = [
      "thread.launch",
      "thread.model-selection.set",
      "provider.switch",
      "delegated_task.request",
    ];
    for (const action of withModel) {
      const guard = getAction(action).guards.find((g) => g.kind === "model_selection_offered");
      expect(guard, action).toMatchObject({ path: ["modelSelection"], source: "server.getConfig" });
    }
    const declared = ["thread.send", "thread.pin", "thread.fork"].flatMap(
      (action) => getAction(action).guards,
    );
    expect(declared.some((g) => g.kind === "model_selection_offered")).toBe(false);
  });

  it("serialises project-scoped writes only", () => {
    expect(getAction("thread.launch").serializeByProject).toBe(true);
    expect(getAction("thread.fork").serializeByProject).toBe(true);
    expect(getAction("thread.send").serializeByProject).toBe(false);
  });
});
