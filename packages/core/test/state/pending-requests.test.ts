import { describe, expect, it } from "vitest";
import {
  ANSWER_REQUEST_TOOL,
  APPROVE_REQUEST_TOOL,
  pendingRequests,
  type RuntimeRequestInput,
  type TurnItemInput,
  threadRead,
} from "../../src/state/index.js";
import { activeRow, projection, RUN_1, T } from "./rows.js";

const THREAD = "blocked-thread";
const shell = activeRow("running", { id: THREAD });

const questionRequest: RuntimeRequestInput = {
  id: "pending-question",
  nodeId: "node:q",
  kind: "user_input",
  status: "pending",
  responseCapability: { type: "live", providerSessionId: "provider-session:secret" },
  createdAt: T.afterSnooze,
};

const questionItem: TurnItemInput & Record<string, unknown> = {
  id: "item:q",
  type: "user_input_request",
  nodeId: "node:q",
  title: "Which destination?",
  requestId: "pending-question",
  questions: [
    {
      id: "destinations",
      header: "Destinations",
      question: "Where should the build go?",
      options: [
        { label: "Staging", description: "the staging cluster", value: "staging" },
        { label: "Production", description: "the live cluster" },
      ],
      multiSelect: true,
      required: true,
    },
  ],
  responseMode: "message",
  // Private fields a provider may attach: never exposed.
  nativeItemRef: "native:secret",
  answers: { destinations: ["staging"] },
};

const approvalRequest: RuntimeRequestInput = {
  id: "pending-approval",
  nodeId: "node:a",
  kind: "command",
  status: "pending",
  responseCapability: { type: "message" },
  createdAt: T.later,
};

const approvalItem: TurnItemInput = {
  id: "item:a",
  type: "approval_request",
  nodeId: "node:a",
  title: "Run rm -rf build",
  requestId: "pending-approval",
  requestKind: "command",
  prompt: "Allow `rm -rf build`?",
  appName: "shell",
  options: [
    { decision: "accept", label: "Allow once" },
    { decision: "acceptForSession", label: "Allow for this session", warning: "applies to every command" },
    { decision: "decline", label: "Deny" },
  ],
};

const only = <T>(entries: readonly T[]): T => {
  expect(entries).toHaveLength(1);
  return entries[0] as T;
};

describe("pendingRequests: a question with options", () => {
  const entry = only(
    pendingRequests(shell, projection({ runtimeRequests: [questionRequest], turnItems: [questionItem] })),
  );

  it("exposes the questions and options as supplied", () => {
    expect(entry).toMatchObject({
      runtimeRequestId: "pending-question",
      requestId: "pending-question",
      kind: "user_input",
      reason: "question waiting for an answer",
      nodeId: "node:q",
      since: T.afterSnooze,
      detail: "Which destination?",
      contentAvailable: true,
      unavailableReason: null,
      threadSendAnswersRequest: false,
    });
    expect(entry.content).toEqual({
      type: "user_input",
      questions: [
        {
          id: "destinations",
          header: "Destinations",
          question: "Where should the build go?",
          options: [
            { label: "Staging", description: "the staging cluster", value: "staging" },
            { label: "Production", description: "the live cluster" },
          ],
          multiSelect: true,
          required: true,
        },
      ],
      responseMode: "message",
    });
  });

  it("names the answer tool and the target ids, never an answer", () => {
    expect(entry.nextAction).toEqual({
      type: "respond_runtime_request",
      action: "runtime-request.answer",
      tool: "t3_escrever_runtime_request_answer",
      input: { threadId: THREAD, requestId: "pending-question" },
      responseField: "answers",
      requiresUserDecision: true,
    });
    expect(ANSWER_REQUEST_TOOL).toBe("t3_escrever_runtime_request_answer");
  });

  it("keeps native references and prior answers out", () => {
    const json = JSON.stringify(entry);
    expect(json).not.toContain("secret");
    expect(json).not.toContain('answers":{');
    expect(entry.responseCapability).toEqual({ type: "live" });
  });
});

describe("pendingRequests: an approval", () => {
  it("exposes the prompt and the provider's options, and names the approve tool", () => {
    const entry = only(
      pendingRequests(shell, projection({ runtimeRequests: [approvalRequest], turnItems: [approvalItem] })),
    );
    expect(entry.content).toEqual({
      type: "approval",
      prompt: "Allow `rm -rf build`?",
      appName: "shell",
      options: [
        { decision: "accept", label: "Allow once" },
        {
          decision: "acceptForSession",
          label: "Allow for this session",
          warning: "applies to every command",
        },
        { decision: "decline", label: "Deny" },
      ],
    });
    expect(entry.reason).toBe("command approval");
    expect(entry.nextAction).toEqual({
      type: "respond_runtime_request",
      action: "runtime-request.approve",
      tool: "t3_escrever_runtime_request_approve",
      input: { threadId: THREAD, requestId: "pending-approval" },
      responseField: "decision",
      requiresUserDecision: true,
    });
    expect(APPROVE_REQUEST_TOOL).toBe("t3_escrever_runtime_request_approve");
  });

  it("invents no options when the provider sent none", () => {
    const { options: _dropped, ...withoutOptions } = approvalItem;
    const entry = only(
      pendingRequests(shell, projection({ runtimeRequests: [approvalRequest], turnItems: [withoutOptions] })),
    );
    expect(entry.content).toEqual({ type: "approval", prompt: "Allow `rm -rf build`?", appName: "shell" });
    expect(entry.nextAction.type).toBe("respond_runtime_request");
  });

  it("an MCP elicitation is an approval, not a question", () => {
    const request = { ...approvalRequest, kind: "mcp-elicitation" };
    const item = { ...approvalItem, requestKind: "mcp-elicitation", options: undefined };
    const entry = only(pendingRequests(shell, projection({ runtimeRequests: [request], turnItems: [item] })));
    expect(entry.content?.type).toBe("approval");
    expect(entry.reason).toBe("MCP tool asking for data");
    expect(entry.nextAction).toMatchObject({ tool: APPROVE_REQUEST_TOOL, responseField: "decision" });
  });
});

describe("pendingRequests: when it cannot be answered from here → inspect_in_t3", () => {
  const cases: Array<[string, RuntimeRequestInput, TurnItemInput[], string]> = [
    ["no turn item holds the content", questionRequest, [], "request_detail_not_in_snapshot"],
    [
      "an item on the same node but without the request id does not count",
      questionRequest,
      [{ ...questionItem, requestId: null }],
      "request_detail_not_in_snapshot",
    ],
    [
      "an item of the other type does not count",
      questionRequest,
      [{ ...approvalItem, requestId: "pending-question", requestKind: "user_input" }],
      "request_detail_not_in_snapshot",
    ],
    [
      "an approval item of another request kind does not count",
      approvalRequest,
      [{ ...approvalItem, requestKind: "file-change" }],
      "request_detail_not_in_snapshot",
    ],
    [
      "a question with a blank text",
      questionRequest,
      [{ ...questionItem, questions: [{ id: "q", header: "H", question: "  ", options: [] }] }],
      "request_detail_incomplete_or_invalid",
    ],
    [
      "an empty question list",
      questionRequest,
      [{ ...questionItem, questions: [] }],
      "request_detail_incomplete_or_invalid",
    ],
    [
      "a question without its option list",
      questionRequest,
      [{ ...questionItem, questions: [{ id: "q", header: "H", question: "Q?" }] }],
      "request_detail_incomplete_or_invalid",
    ],
    [
      "an approval option with an unknown decision",
      approvalRequest,
      [{ ...approvalItem, options: [{ decision: "acceptForever", label: "Always" }] }],
      "request_detail_incomplete_or_invalid",
    ],
    [
      "an approval without a prompt",
      approvalRequest,
      [{ ...approvalItem, prompt: undefined }],
      "request_detail_incomplete_or_invalid",
    ],
    [
      "a kind the connector cannot answer",
      { ...questionRequest, kind: "dynamic_tool_call" },
      [questionItem],
      "unsupported_request_kind",
    ],
    [
      "a missing response capability",
      { ...questionRequest, responseCapability: undefined },
      [questionItem],
      "response_capability_unavailable",
    ],
    [
      "an invalid response capability",
      { ...questionRequest, responseCapability: { type: "carrier_pigeon" } },
      [questionItem],
      "response_capability_unavailable",
    ],
    [
      "a request that cannot be resumed",
      { ...questionRequest, responseCapability: { type: "not_resumable", reason: "provider restarted" } },
      [questionItem],
      "request_not_resumable",
    ],
  ];
  it.each(cases)("%s", (_name, request, items, reason) => {
    const entry = only(pendingRequests(shell, projection({ runtimeRequests: [request], turnItems: items })));
    expect(entry.nextAction).toEqual({ type: "inspect_in_t3", reason });
  });

  it("content missing wins over a missing capability as the reason", () => {
    const request = { ...questionRequest, responseCapability: null };
    const entry = only(pendingRequests(shell, projection({ runtimeRequests: [request] })));
    expect(entry).toMatchObject({ contentAvailable: false, content: null });
    expect(entry.nextAction).toEqual({ type: "inspect_in_t3", reason: "request_detail_not_in_snapshot" });
  });

  it("a not_resumable request still shows its content, but is not offered for an answer", () => {
    const request = { ...questionRequest, responseCapability: { type: "not_resumable", reason: "gone" } };
    const entry = only(
      pendingRequests(shell, projection({ runtimeRequests: [request], turnItems: [questionItem] })),
    );
    expect(entry.contentAvailable).toBe(true);
    expect(entry.responseCapability).toEqual({ type: "not_resumable", reason: "gone" });
  });
});

describe("pendingRequests: which requests, in which order", () => {
  it("lists only pending ones, oldest first", () => {
    const resolved = { ...approvalRequest, id: "done", status: "resolved", createdAt: T.created };
    const newer = { ...approvalRequest, createdAt: T.later };
    const older = { ...questionRequest, createdAt: T.snoozedAt };
    const entries = pendingRequests(
      shell,
      projection({ runtimeRequests: [resolved, newer, older], turnItems: [questionItem, approvalItem] }),
    );
    expect(entries.map((entry) => entry.requestId)).toEqual(["pending-question", "pending-approval"]);
  });

  it("joins content from the timeline rows of a bounded snapshot too", () => {
    const entry = only(
      pendingRequests(
        shell,
        projection({ runtimeRequests: [questionRequest], visibleTurnItems: [{ item: questionItem }] }),
      ),
    );
    expect(entry.contentAvailable).toBe(true);
  });

  it("keeps a request known only to the shell visible, with its content unavailable", () => {
    const row = {
      ...shell,
      pendingRuntimeRequest: { id: "shell-only", kind: "user_input", createdAt: T.later },
    };
    const entry = only(
      pendingRequests(row, projection({ turnItems: [{ ...questionItem, requestId: "shell-only" }] })),
    );
    expect(entry).toMatchObject({
      requestId: "shell-only",
      kind: "user_input",
      since: T.later,
      contentAvailable: false,
      unavailableReason: "request_detail_not_in_snapshot",
      responseCapability: null,
      nextAction: { type: "inspect_in_t3", reason: "request_detail_not_in_snapshot" },
    });
  });

  it("does not add the shell's request when the projection already holds it, even resolved", () => {
    const row = {
      ...shell,
      pendingRuntimeRequest: { id: "pending-question", kind: "user_input", createdAt: T.later },
    };
    const resolved = { ...questionRequest, status: "resolved" };
    expect(
      pendingRequests(row, projection({ runtimeRequests: [resolved], turnItems: [questionItem] })),
    ).toEqual([]);
  });

  it("falls back to a same-node item without a request id for the detail hint, cut to 500 characters", () => {
    const hint = { id: "item:n", type: "command_execution", nodeId: "node:q", title: "x".repeat(900) };
    const entry = only(
      pendingRequests(shell, projection({ runtimeRequests: [questionRequest], turnItems: [hint] })),
    );
    expect(entry.detail).toBe(`${"x".repeat(500)}…`);
    expect(entry.contentAvailable).toBe(false);
  });
});

describe("threadRead with pending requests", () => {
  it("the projection's pending request decides the state and maxCharacters does not cut questions", () => {
    const longQuestion = "Which one? ".repeat(100);
    const item = {
      ...questionItem,
      questions: [
        { id: "q", header: "H", question: longQuestion, options: [{ label: "A", description: "a" }] },
      ],
    };
    const read = threadRead(
      shell,
      projection({ runtimeRequests: [questionRequest], turnItems: [item] }),
      null,
      {
        now: Date.parse(T.later),
        maxCharacters: 200,
      },
    );
    expect(read).toMatchObject({
      state: "needs_intervention",
      stateSource: "pending_request",
      identifier: { runtimeRequestId: "pending-question" },
      runId: RUN_1,
    });
    const content = read.pendingRequests[0]?.content;
    expect(content?.type === "user_input" && content.questions[0]?.question).toBe(longQuestion);
  });
});
