/**
 * What a send's failure proves (issue 8: a refusal is a refusal). The errors are built by the RPC
 * client's own Exit reader from the causes T3 sends, so the classification sees what it will see
 * on the wire; the dispatcher tests drive the same paths over the simulator.
 */

import { ConnectorError } from "@t3-connector/core";
import { errorFromCause } from "@t3-connector/test-support/t3-rpc-exit";
import { describe, expect, it } from "vitest";
import { type BuiltPayload, SAMPLE_IDS } from "../../src/actions/index.js";
import { failedSendOutcome } from "../../src/dispatch/send.js";

const METHOD = "orchestration.dispatchCommand";
const PIN_REORDER: BuiltPayload = {
  kind: "dispatch",
  command: { type: "thread.pin.reorder", commandId: "c-1", threadId: SAMPLE_IDS.threadId, orderKey: "a0" },
};
const DECODE_DEFECT =
  'Expected { readonly "type": "thread.create", ... } | { readonly "type": "thread.unsettle", readonly "reason": "user", ... } | { readonly "type": "provider.switch", ... }';

const die = (defect: string) => errorFromCause(METHOD, [{ _tag: "Die", defect }]);
const fail = (message: string) =>
  errorFromCause(METHOD, [
    { _tag: "Fail", error: { _tag: "OrchestrationV2DispatchCommandError", commandId: "c-1", message } },
  ]);

describe("what a failed send proves", () => {
  it("the decode defect of a command type the server lacks: refused, action_unsupported, with the accepted types", () => {
    const outcome = failedSendOutcome(die(DECODE_DEFECT), PIN_REORDER);
    expect(outcome.kind).toBe("refused");
    expect(outcome.error.code).toBe("action_unsupported");
    expect(outcome.error.details).toMatchObject({
      commandType: "thread.pin.reorder",
      acceptedCommandTypes: ["thread.create", "thread.unsettle", "provider.switch"],
    });
  });

  it("a typed Fail (a refusal, or a previously rejected commandId): refused, t3_refused", () => {
    const outcome = failedSendOutcome(fail("Thread is not pinned."), PIN_REORDER);
    expect(outcome.kind).toBe("refused");
    expect(outcome.error.code).toBe("t3_refused");
    expect(outcome.error.t3?.tag).toBe("OrchestrationV2DispatchCommandError");
  });

  it("a Fail saying the commandId conflicts proves nothing: conflict", () => {
    const outcome = failedSendOutcome(
      fail("Command c-1 conflicts with a command already received for thread t-a."),
      PIN_REORDER,
    );
    expect(outcome.kind).toBe("conflict");
  });

  it("another Die, or an answer that does not decode, is a defect to be decided by reading", () => {
    expect(failedSendOutcome(die("Expected string, got 42"), PIN_REORDER).kind).toBe("defect");
    const undecodable = new ConnectorError("invalid_response", "the success did not decode");
    expect(failedSendOutcome(undecodable, PIN_REORDER).kind).toBe("defect");
  });

  it("no answer at all is lost; a local too-many-in-flight is not sent", () => {
    expect(failedSendOutcome(new ConnectorError("connection_lost", "gone"), PIN_REORDER).kind).toBe("lost");
    expect(failedSendOutcome(new Error("boom"), PIN_REORDER)).toMatchObject({
      kind: "lost",
      error: { code: "connection_lost" },
    });
    expect(failedSendOutcome(new ConnectorError("too_many_in_flight", "busy"), PIN_REORDER).kind).toBe(
      "not_sent",
    );
  });

  it("reads a long defect before clipping it for the message", () => {
    const types = Array.from({ length: 80 }, (_, index) => `command.number-${index}`);
    const long = `Expected ${types.map((type) => `{ readonly "type": "${type}", ... }`).join(" | ")}`;
    expect(long.length).toBeGreaterThan(2000);
    const outcome = failedSendOutcome(die(long), PIN_REORDER);
    expect(outcome.error.details?.acceptedCommandTypes).toHaveLength(80);
  });
});
