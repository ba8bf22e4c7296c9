/**
 * A write that waited for nothing between its fresh read and its preflight reads T3 once: the scope
 * check and the guards judge the same read, taken right before the reservation (ADR 0062). The
 * count is taken at the simulator's HTTP server.
 */
import { describe, expect, it } from "vitest";
import { SAMPLE_IDS } from "../../src/actions/index.js";
import { type Harness, LEASE_ID, useHarness } from "./support/harness.js";

const T = SAMPLE_IDS.threadId;
let harness: Harness;

useHarness(
  {
    aliases: ["reads"],
    seed: (env) => env.model.addThread({ id: T, projectId: SAMPLE_IDS.projectId, state: "completed" }),
  },
  (started) => {
    harness = started;
  },
);

describe("the reads a write makes", () => {
  it("reads the thread it targets once before its send", async () => {
    const env = harness.env("reads");
    // The connection's own start-up reads come first; only the write's reads are counted.
    await harness.dispatcher.dispatch({
      leaseId: LEASE_ID,
      environment: "reads",
      operationId: "op-reads-warm",
      action: "thread.pin",
      input: { threadId: T },
    });
    const before = env.httpRequests.length;
    const done = await harness.dispatcher.dispatch({
      leaseId: LEASE_ID,
      environment: "reads",
      operationId: "op-reads-once",
      action: "thread.title",
      input: { threadId: T, title: "read once" },
    });
    expect(done).toMatchObject({ state: "completed", replayed: false });
    const reads = env.httpRequests.slice(before).filter((request) => request.path.includes(T));
    expect(reads).toHaveLength(1);
  });
});
