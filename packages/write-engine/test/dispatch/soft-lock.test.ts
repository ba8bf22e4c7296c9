/**
 * The soft-lock: a thread waits on a user_input question; a message sent instead
 * of an answer would queue behind the question and both would wait forever. The send is refused
 * naming the answer tool, and the answer resolves the question so the run goes on.
 */

import type { ThreadStreamItem } from "@t3-connector/core/t3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SAMPLE_IDS } from "../../src/actions/index.js";
import { commandsSince, dispatchFailure, type Harness, LEASE_ID, startHarness } from "./support/harness.js";

const T = SAMPLE_IDS.threadId;
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    aliases: ["softlock"],
    clock: "real",
    seed: (env) =>
      env.model.addThread({ id: T, projectId: SAMPLE_IDS.projectId, state: "waiting_user_input" }),
  });
});

afterAll(async () => {
  await harness?.close();
});

describe("a thread waiting on a question", () => {
  it("refuses thread.send naming the answer tool; the answer resolves it and the run resumes", async () => {
    const env = harness.env("softlock");
    const before = env.model.receivedCommands.length;
    const refused = await dispatchFailure(
      harness.dispatcher.dispatch({
        leaseId: LEASE_ID,
        environment: "softlock",
        operationId: "op-softlock-send",
        action: "thread.send",
        input: {
          threadId: T,
          text: "Use the second option.",
          clientRequestId: "op-softlock-send",
          delivery: "start_immediately",
        },
      }),
    );
    expect(refused.code).toBe("guard_refused");
    expect(refused.message).toContain("t3_escrever_runtime_request_answer");
    expect(refused.details).toMatchObject({
      reason: "thread_pending_request",
      requestKind: "user_input",
      answerTool: "t3_escrever_runtime_request_answer",
      state: "refused",
      sent: false,
    });
    expect(commandsSince(env, before)).toEqual([]);

    const connected = await harness.registry.connect("softlock");
    const { projection } = await connected.http.getThread(T);
    const request = projection.runtimeRequests.find((row) => row.status === "pending");
    const question = projection.turnItems.find((item) => item.type === "user_input_request");
    const questions = (question as { questions?: { id: string }[] } | undefined)?.questions ?? [];
    expect(request?.id).toBe(refused.details?.requestId);
    expect(questions.length).toBeGreaterThan(0);

    const rpc = await connected.rpc();
    let resolveCompleted!: () => void;
    const completed = new Promise<void>((resolve) => {
      resolveCompleted = resolve;
    });
    const subscription = rpc.subscribeThread({
      threadId: T,
      onItem: (item: ThreadStreamItem) => {
        if (item.kind !== "event" || item.event.type !== "run.updated") return;
        const run = item.event.payload as { id?: string; status?: string };
        if (run.id === SAMPLE_IDS.runId && run.status === "completed") resolveCompleted();
      },
    });
    try {
      const answered = await harness.dispatcher.dispatch({
        leaseId: LEASE_ID,
        environment: "softlock",
        operationId: "op-softlock-answer",
        action: "runtime-request.answer",
        input: {
          threadId: T,
          requestId: request?.id,
          answers: Object.fromEntries(questions.map((q) => [q.id, "second"])),
        },
      });
      expect(answered.state).toBe("completed");
      await completed;
    } finally {
      subscription.close();
    }
    const shell = await connected.http.getShell();
    expect(shell.threads.find((thread) => thread.id === T)?.pendingRuntimeRequest ?? null).toBeNull();
    expect(commandsSince(env, before).map((command) => command.type)).toEqual(["runtime-request.respond"]);
  });
});
