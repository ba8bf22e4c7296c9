import { readFileSync } from "node:fs";
import { realFixturePath } from "@t3-connector/test-support/real-fixtures";
import { describe, expect, it } from "vitest";
import { parseAcceptedCommandTypes } from "../../src/t3/index.js";

/** The real 0.0.31 answer to an unknown command type (fixture 33b). */
const FIXTURE_33B = realFixturePath("33b-ws-dispatch-unknown-command-type.json");

// The 37 command types a 0.0.31 server lists in its decode defect.
const ACCEPTED_ON_0_0_31 = [
  "thread.create",
  "thread.archive",
  "thread.unarchive",
  "thread.delete",
  "thread.settle",
  "thread.unsettle",
  "thread.snooze",
  "thread.unsnooze",
  "thread.pin",
  "thread.unpin",
  "thread.visit",
  "thread.mark-unread",
  "thread.metadata.update",
  "thread.title.regeneration.complete",
  "thread.runtime-mode.set",
  "thread.interaction-mode.set",
  "thread.model-selection.set",
  "provider-session.detach",
  "message.dispatch",
  "prepared-run.release",
  "prepared-run.progress",
  "prepared-run.fail",
  "run.interrupt",
  "queued-message.promote-to-steer",
  "queued-run.reorder",
  "queued-run.cancel",
  "queued-run.edit",
  "runtime-request.respond",
  "checkpoint.rollback",
  "thread.fork",
  "thread.merge_back",
  "delegated_task.request",
  "delegated_task.wake-policy",
  "delegated_task.completion-delivery.acknowledge",
  "delegated_task.completion-delivery.dispose",
  "thread.created.record",
  "provider.switch",
];

function defectListing(types: readonly string[]): string {
  return `Expected ${types.map((type) => `{ readonly "type": "${type}", ... }`).join(" | ")}`;
}

describe("parseAcceptedCommandTypes", () => {
  it("reads the 37 accepted command types from the 0.0.31 decode defect, in order", () => {
    const types = parseAcceptedCommandTypes(defectListing(ACCEPTED_ON_0_0_31));
    expect(types).toEqual(ACCEPTED_ON_0_0_31);
    expect(types).toHaveLength(37);
    expect(types).not.toContain("thread.pin.reorder");
  });

  it("reads the defect of the real 0.0.31 Exit frame, literal fields (`reason: user`) included", () => {
    const capture = JSON.parse(readFileSync(FIXTURE_33B, "utf8")) as {
      response: { ws_frames_received: { frame: { exit: { cause: { _tag: string; defect: string }[] } } }[] };
    };
    const cause = capture.response.ws_frames_received[0]?.frame.exit.cause[0];
    expect(cause?._tag).toBe("Die");
    expect(cause?.defect).toContain('{ readonly "type": "thread.unsettle", readonly "reason": "user", ... }');
    expect(parseAcceptedCommandTypes(cause?.defect ?? "")).toEqual(ACCEPTED_ON_0_0_31);
  });

  it("reads a single-member union and ignores what a schema library appends after it", () => {
    expect(parseAcceptedCommandTypes('Expected { readonly "type": "thread.pin", ... }')).toEqual([
      "thread.pin",
    ]);
    expect(
      parseAcceptedCommandTypes(
        `${defectListing(["thread.pin", "thread.unpin"])}, got {"type":"thread.pin.reorder","commandId":"c"}`,
      ),
    ).toEqual(["thread.pin", "thread.unpin"]);
    expect(parseAcceptedCommandTypes(`${defectListing(["thread.pin"])}\n  at ["type"]`)).toEqual([
      "thread.pin",
    ]);
  });

  it("is not fooled by other defects or by a listing with an elided member", () => {
    expect(parseAcceptedCommandTypes("")).toBeUndefined();
    expect(parseAcceptedCommandTypes("RpcClientError: stream closed")).toBeUndefined();
    expect(parseAcceptedCommandTypes("Expected string, got 42")).toBeUndefined();
    expect(parseAcceptedCommandTypes('Expected { readonly "id": string, ... }')).toBeUndefined();
    // A listing abbreviated with `| ... |` (as notes often quote it) does not name every type.
    expect(
      parseAcceptedCommandTypes(
        'Expected { readonly "type": "thread.create", ... } | ... | { readonly "type": "provider.switch", ... }',
      ),
    ).toBeUndefined();
    expect(parseAcceptedCommandTypes(`${defectListing(["thread.pin"])} | something else`)).toBeUndefined();
  });
});
