/** Pending secret requests (newer T3 servers): a state needing a person, answered in T3 itself. */
import { describe, expect, it } from "vitest";
import {
  attentionThreads,
  controlPlaneLists,
  SECRET_REQUEST_NEXT_ACTION_MESSAGE,
  threadRead,
  threadState,
  threadSummary,
} from "../../src/state/index.js";
import { activeRow, finishedRow, projection, RUN_1, shellRow, T } from "./rows.js";

const SECRET = { id: "secret-1", name: "GITHUB_TOKEN", createdAt: T.created };

describe("a pending secret request", () => {
  it("makes the thread need a person, with a nextAction that says to answer it in T3 itself", () => {
    const state = threadState(finishedRow("completed", { pendingSecretRequest: SECRET }));
    expect(state).toMatchObject({
      state: "needs_intervention",
      stateSource: "secret_request",
      kind: "secret_request",
      identifier: { secretRequestId: "secret-1" },
      since: T.created,
      nextAction: {
        type: "answer_in_t3",
        reason: "secret_request",
        message: "Answer it in T3 itself; the value never travels through the connector.",
      },
    });
    expect(state.reason).toContain("GITHUB_TOKEN");
    expect(SECRET_REQUEST_NEXT_ACTION_MESSAGE).toMatch(/never travels through the connector/);
  });

  it("outranks a running run, but a pending runtime request (answerable by a write) comes first", () => {
    expect(threadState(activeRow("running", { pendingSecretRequest: SECRET })).stateSource).toBe(
      "secret_request",
    );
    const both = threadState(
      activeRow("running", {
        pendingSecretRequest: SECRET,
        pendingRuntimeRequest: { id: "req-1", kind: "command", createdAt: T.created },
      }),
    );
    expect(both.stateSource).toBe("pending_request");
    expect(both.nextAction).toBeUndefined();
  });

  it("is read from the projection's secret_request item when the row does not carry it", () => {
    const read = threadRead(
      finishedRow("completed"),
      projection({
        turnItems: [
          {
            id: "item-secret",
            type: "secret_request",
            requestId: "secret-9",
            name: "NPM_TOKEN",
            secretStatus: "pending",
            startedAt: T.created,
          },
          { id: "item-old", type: "secret_request", requestId: "secret-0", secretStatus: "saved" },
        ],
      }),
      null,
      { now: Date.parse(T.later) },
    );
    expect(read).toMatchObject({
      stateSource: "secret_request",
      identifier: { secretRequestId: "secret-9" },
    });
  });

  it("lists the thread in t3_atencao and in the control plane's needsIntervention, even when settled", () => {
    const waiting = threadSummary(
      finishedRow("completed", { id: "waiting", pendingSecretRequest: SECRET, settledAt: T.created }),
      { now: Date.parse(T.later) },
    );
    const done = threadSummary(finishedRow("completed", { id: "done" }), { now: Date.parse(T.later) });
    expect(attentionThreads([waiting, done]).map((t) => t.threadId)).toEqual(["waiting"]);
    const lists = controlPlaneLists(
      [
        {
          environment: { alias: "alpha", environmentId: "env-1" },
          thread: finishedRow("completed", { id: "waiting", pendingSecretRequest: SECRET }),
          summary: waiting,
        },
      ],
      { now: Date.parse(T.later) },
    );
    expect(lists.needsIntervention.threads).toEqual([
      expect.objectContaining({
        threadId: "waiting",
        pendingRequest: expect.objectContaining({ requestId: "secret-1", kind: "secret_request" }),
        nextAction: expect.objectContaining({ type: "answer_in_t3" }),
      }),
    ]);
  });

  it("is nothing once answered: a row without it keeps its run's state", () => {
    expect(threadState(shellRow({ pendingSecretRequest: null })).stateSource).not.toBe("secret_request");
    expect(RUN_1).toBeTruthy();
  });
});
