import { THREAD_STATES } from "@t3-connector/core/state";
import { INTERACTION_MODES, RUNTIME_MODES } from "@t3-connector/write-engine/actions";
import { describe, expect, it } from "vitest";
import { INTERACTION_MODE_NAMES, RUNTIME_MODE_NAMES, THREAD_STATE_NAMES } from "../src/command-constants.js";

// The CLI keeps copies of these lists so that parsing a command line loads neither owner.
describe("the ops CLI's copies of lists owned elsewhere", () => {
  it("equal their owners", () => {
    expect([...THREAD_STATE_NAMES]).toEqual([...THREAD_STATES]);
    expect([...RUNTIME_MODE_NAMES]).toEqual([...RUNTIME_MODES]);
    expect([...INTERACTION_MODE_NAMES]).toEqual([...INTERACTION_MODES]);
  });
});
