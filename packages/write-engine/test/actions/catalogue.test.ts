import { isConnectorError } from "@t3-connector/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAction, oneThread, threadOnlyInput } from "../../src/actions/define.js";
import {
  ACTION_IDS,
  ACTIONS,
  deriveIds,
  getAction,
  prepareAction,
  SAMPLE_INPUTS,
  writeEnvelopeSchema,
} from "../../src/actions/index.js";

/** The catalogue's order, typed out from the table so the order is checked against the source. */
const CONTRACT_ORDER = [
  "thread.archive",
  "thread.unarchive",
  "thread.delete",
  "thread.settle",
  "thread.pin",
  "thread.unpin",
  "thread.unsnooze",
  "thread.mark-unread",
  "thread.unsettle",
  "thread.snooze",
  "thread.auto-settle.set",
  "thread.pin.reorder",
  "thread.active.reorder",
  "thread.visit",
  "thread.title",
  "thread.runtime-mode.set",
  "thread.interaction-mode.set",
  "thread.model-selection.set",
  "provider.switch",
  "provider-session.detach",
  "run.interrupt",
  "prepared-run.release",
  "prepared-run.retry",
  "queue.resume",
  "queued-run.cancel",
  "queued-run.reorder",
  "queued-run.edit",
  "queued-message.promote-to-steer",
  "runtime-request.approve",
  "runtime-request.answer",
  "thread.user-input.dismiss",
  "checkpoint.rollback",
  "thread.launch",
  "thread.send",
  "thread.metadata.update",
  "thread.pull-request.link",
  "thread.pull-request.unlink",
  "thread.pull-request.watch",
  "thread.fork",
  "thread.merge_back",
  "delegated_task.request",
  "delegated_task.wake-policy",
  "delegated_task.completion-delivery.acknowledge",
  "delegated_task.completion-delivery.dispose",
  "project.create",
  "project.meta.update",
  "project.delete",
];

/** Pre-0.6 Portuguese parameter and key names that the contract lists as refused. */
const LEGACY_NAMES = [
  "ambiente",
  "ambientes",
  "busca",
  "limite",
  "estado",
  "padrao",
  "projetosPermitidos",
  "projetos",
  "acoes",
  "porta",
  "canal",
];

const KEY = "a".repeat(64);

describe("the write-action table", () => {
  it("lists exactly the 47 contract actions in registration order", () => {
    expect(ACTIONS).toHaveLength(47);
    expect(ACTION_IDS).toEqual(CONTRACT_ORDER);
  });

  it("declares English labels and short descriptions on every action", () => {
    for (const entry of ACTIONS) {
      expect(entry.label.length).toBeGreaterThan(3);
      expect(entry.description.length).toBeLessThanOrEqual(240);
    }
  });

  it("fills what an entry leaves out with the defaults: its input's thread as target, the action id as command type", () => {
    const example = defineAction({
      action: "thread.example",
      label: "Example",
      group: "organize",
      runEffect: "runs-nothing",
      description: "Example.",
      inputSchema: threadOnlyInput,
      fields: (input) => ({ threadId: input.threadId, unset: undefined }),
    });
    expect(example.drives({ threadId: "t-1" })).toEqual(["t-1"]);
    expect(example).toMatchObject({
      commandType: "thread.example",
      payloadKind: "dispatch",
      extraIds: [],
      guards: [],
      serializeByProject: false,
    });
    expect(example.targets({ threadId: "t-1" })).toEqual(oneThread("t-1"));
    expect(example.build({ threadId: "t-1" }, { commandId: "c-1" })).toEqual({
      kind: "dispatch",
      command: { type: "thread.example", commandId: "c-1", threadId: "t-1" },
    });
    expect(Object.isFrozen(example)).toBe(true);
  });

  it("keeps what an entry says instead of a default, and names another command type only where T3's differs", () => {
    const send = getAction("thread.send");
    expect(send).toMatchObject({
      commandType: "message.dispatch",
      extraIds: ["messageId"],
      serializeByProject: false,
    });
    expect(send.guards.map((guard) => guard.kind)).toEqual([
      "client_request_id_equals_operation_id",
      "no_pending_request",
      "thread_provider_ready",
    ]);
    expect(getAction("thread.fork")).toMatchObject({
      extraIds: ["targetThreadId"],
      serializeByProject: true,
    });
    const renamed = ACTIONS.filter(
      (entry) => entry.commandType !== null && entry.commandType !== entry.action,
    );
    expect(renamed.map((entry) => [entry.action, entry.commandType])).toEqual([
      ["thread.title", "thread.metadata.update"],
      ["runtime-request.approve", "runtime-request.respond"],
      ["runtime-request.answer", "runtime-request.respond"],
      ["thread.send", "message.dispatch"],
      // 0.0.31's mutation name; project.meta.update is the command the server makes of it (fixture 104).
      ["project.meta.update", "project.update"],
    ]);
  });

  it("sends thread.launch over launchThread, project admin over projects.mutate and every other action as a dispatched command", () => {
    for (const entry of ACTIONS) {
      if (entry.action === "thread.launch") {
        expect(entry.payloadKind).toBe("launch");
        expect(entry.commandType).toBeNull();
      } else if (entry.action.startsWith("project.")) {
        expect(entry.payloadKind).toBe("project");
      } else {
        expect(entry.payloadKind).toBe("dispatch");
        expect(entry.commandType).toEqual(expect.any(String));
      }
    }
  });

  it("never sends a command type that T3 V2 does not have", () => {
    const types = new Set(ACTIONS.map((entry) => entry.commandType));
    for (const missing of [
      "thread.send",
      "thread.launch",
      "runtime-request.answer",
      "runtime-request.approve",
      "thread.title",
      "thread.turn.start",
    ]) {
      expect(types.has(missing)).toBe(false);
    }
  });

  it("maps approve and answer to runtime-request.respond with decision or answers", () => {
    const approve = prepareAction("runtime-request.approve", SAMPLE_INPUTS["runtime-request.approve"], KEY);
    const answer = prepareAction("runtime-request.answer", SAMPLE_INPUTS["runtime-request.answer"], KEY);
    expect(approve.payload.kind === "dispatch" && approve.payload.command.type).toBe(
      "runtime-request.respond",
    );
    expect(answer.payload.kind === "dispatch" && answer.payload.command.type).toBe("runtime-request.respond");
    expect(approve.payload.kind === "dispatch" && approve.payload.command).toMatchObject({
      decision: "acceptForSession",
    });
    expect(approve.payload.kind === "dispatch" && "answers" in approve.payload.command).toBe(false);
    expect(answer.payload.kind === "dispatch" && answer.payload.command).toMatchObject({
      answers: { name: "Alex" },
    });
    expect(answer.payload.kind === "dispatch" && "decision" in answer.payload.command).toBe(false);
  });

  it("names the targets the gate checks: threads, or the project of a launch (a new project names none)", () => {
    const targets = (action: (typeof CONTRACT_ORDER)[number]) => {
      const entry = getAction(action);
      return entry.targets(entry.inputSchema.parse(SAMPLE_INPUTS[action as keyof typeof SAMPLE_INPUTS]));
    };
    expect(targets("thread.launch")).toEqual({
      threadIds: [],
      projectIds: ["d21e26bb-47ea-4b08-a81f-0abce1f8f482"],
    });
    expect(targets("thread.merge_back").threadIds).toHaveLength(2);
    expect(targets("thread.fork").threadIds).toEqual(["0798fcf8-49d7-4821-812e-7cdce591eed0"]);
    expect(targets("delegated_task.request").threadIds).toEqual(["0798fcf8-49d7-4821-812e-7cdce591eed0"]);
    expect(targets("project.create")).toEqual({ threadIds: [], projectIds: [] });
    expect(targets("project.delete").projectIds).toEqual(["d21e26bb-47ea-4b08-a81f-0abce1f8f482"]);
    for (const action of CONTRACT_ORDER.filter((action) => action !== "project.create")) {
      const found = targets(action);
      expect(found.threadIds.length + found.projectIds.length).toBeGreaterThan(0);
    }
  });
});

describe("strict input schemas", () => {
  it("accepts every sample input", () => {
    for (const entry of ACTIONS) {
      const result = entry.inputSchema.safeParse(SAMPLE_INPUTS[entry.action]);
      expect(result.success, entry.action).toBe(true);
    }
  });

  it("refuses an unknown key on every action", () => {
    for (const entry of ACTIONS) {
      const result = entry.inputSchema.safeParse({ ...SAMPLE_INPUTS[entry.action], unexpected: 1 });
      expect(result.success, entry.action).toBe(false);
      expect(
        result.error?.issues.some((issue) => issue.code === "unrecognized_keys"),
        entry.action,
      ).toBe(true);
    }
  });

  it("refuses every legacy Portuguese parameter name on every action and on the envelope", () => {
    for (const entry of ACTIONS) {
      for (const legacy of LEGACY_NAMES) {
        expect(entry.inputSchema.safeParse({ ...SAMPLE_INPUTS[entry.action], [legacy]: "x" }).success).toBe(
          false,
        );
      }
    }
    const envelope = writeEnvelopeSchema(getAction("thread.pin").inputSchema);
    const valid = {
      leaseId: "lease-1",
      environment: "local",
      operationId: "op-1",
      input: SAMPLE_INPUTS["thread.pin"],
    };
    expect(envelope.safeParse(valid).success).toBe(true);
    expect(envelope.safeParse({ ...valid, ambiente: "local" }).success).toBe(false);
    const { environment: _omitted, ...withoutEnvironment } = valid;
    expect(envelope.safeParse(withoutEnvironment).success).toBe(false);
  });

  it("refuses unknown keys inside nested objects too", () => {
    const model = getAction("thread.model-selection.set").inputSchema;
    expect(
      model.safeParse({ threadId: "t", modelSelection: { provider: "codex", model: "m" } }).success,
    ).toBe(false);
    expect(
      model.safeParse({ threadId: "t", modelSelection: { instanceId: "codex", model: "m", effort: "max" } })
        .success,
    ).toBe(false);
    const launch = getAction("thread.launch").inputSchema;
    const sample = SAMPLE_INPUTS["thread.launch"];
    expect(launch.safeParse({ ...sample, workspaceStrategy: { type: "root", cwd: "/tmp" } }).success).toBe(
      false,
    );
  });

  it("enforces the text and attachment bounds", () => {
    const send = getAction("thread.send").inputSchema;
    const base = SAMPLE_INPUTS["thread.send"];
    expect(send.safeParse({ ...base, text: "x".repeat(120_000) }).success).toBe(true);
    expect(send.safeParse({ ...base, text: "x".repeat(120_001) }).success).toBe(false);
    expect(send.safeParse({ ...base, text: "" }).success).toBe(false);
    const file = { type: "file", id: "att-1", name: "notes.txt", mimeType: "text/plain", sizeBytes: 10 };
    expect(send.safeParse({ ...base, attachments: Array(8).fill(file) }).success).toBe(true);
    expect(send.safeParse({ ...base, attachments: Array(9).fill(file) }).success).toBe(false);
    expect(send.safeParse({ ...base, attachments: [{ ...file, name: "../etc/passwd" }] }).success).toBe(
      false,
    );
  });

  it("requires runtimeMode on thread.runtime-mode.set instead of defaulting it", () => {
    const schema = getAction("thread.runtime-mode.set").inputSchema;
    expect(schema.safeParse({ threadId: "t" }).success).toBe(false);
  });
});

describe("thread.send delivery", () => {
  const send = getAction("thread.send").inputSchema;
  const {
    delivery: _d,
    targetRunId: _t,
    ...noMode
  } = SAMPLE_INPUTS["thread.send"] as Record<string, unknown>;

  function messages(input: unknown): string[] {
    const result = send.safeParse(input);
    expect(result.success).toBe(false);
    return result.error?.issues.map((issue) => issue.message) ?? [];
  }

  it("refuses a send without a delivery mode: there is no default", () => {
    expect(messages(noMode).join(" ")).toContain("delivery_required");
    expect(() => prepareAction("thread.send", noMode, KEY)).toThrow(/delivery_required/);
  });

  it("refuses the delivery names of other tools (auto, queue, steer, restart, defer_start)", () => {
    for (const delivery of ["auto", "queue", "steer", "restart", "defer_start"]) {
      expect(send.safeParse({ ...noMode, delivery }).success).toBe(false);
    }
  });

  it("requires targetRunId for steer and restart, with a named error", () => {
    for (const delivery of ["steer_active", "restart_active"]) {
      expect(messages({ ...noMode, delivery }).join(" ")).toContain("target_run_id_required");
    }
  });

  it("requires deferUntilActiveCompletes: true for a queued follow-up", () => {
    expect(messages({ ...noMode, delivery: "queue_after_active" }).join(" ")).toContain(
      "queue_explicit_intent_required",
    );
    expect(
      messages({ ...noMode, delivery: "queue_after_active", deferUntilActiveCompletes: false }).join(" "),
    ).toContain("queue_explicit_intent_required");
    expect(
      send.safeParse({ ...noMode, delivery: "queue_after_active", deferUntilActiveCompletes: true }).success,
    ).toBe(true);
  });

  it("refuses a targetRunId where the mode has none, and the wire name dispatchMode", () => {
    expect(send.safeParse({ ...noMode, delivery: "start_immediately", targetRunId: "r" }).success).toBe(
      false,
    );
    expect(send.safeParse({ ...noMode, dispatchMode: { type: "start_immediately" } }).success).toBe(false);
  });
});

describe("prepareAction", () => {
  it("turns a schema failure into invalid_input with the issues and builds nothing", () => {
    try {
      prepareAction("thread.snooze", { threadId: "t", snoozedUntil: "tomorrow" }, KEY);
      expect.unreachable();
    } catch (error) {
      expect(isConnectorError(error, "invalid_input")).toBe(true);
      expect((error as { details?: { issues?: unknown[] } }).details?.issues).toHaveLength(1);
    }
  });

  it("refuses a date without a time, showing the date-time form it expects", () => {
    try {
      prepareAction("thread.snooze", { threadId: "t", snoozedUntil: "2026-12-04" }, KEY);
      expect.unreachable();
    } catch (error) {
      expect(isConnectorError(error, "invalid_input")).toBe(true);
      expect((error as Error).message).toContain(
        "expected an ISO date-time with a time zone, such as 2026-12-04T18:00:00Z",
      );
    }
  });

  it("keeps thread.send's clientRequestId with the derived ids", () => {
    const prepared = prepareAction("thread.send", SAMPLE_INPUTS["thread.send"], KEY);
    expect(prepared.ids).toEqual({ ...deriveIds(KEY, "thread.send"), clientRequestId: "op-sample-0001" });
  });

  it("produces JSON-schema-convertible input schemas for the MCP tools", () => {
    for (const entry of ACTIONS) {
      const schema = z.toJSONSchema(writeEnvelopeSchema(entry.inputSchema), { io: "input" }) as {
        additionalProperties?: boolean;
        required?: string[];
      };
      expect(schema.additionalProperties, entry.action).toBe(false);
      expect(schema.required).toEqual(["leaseId", "environment", "operationId", "input"]);
    }
  });
});
