/**
 * The approval pages' change reader on the simulator (ADR 0068, "On the approval pages"): at most
 * MAX_THREADS_PER_READ threads are read a call (the rest say unknown, unread); a known answer is
 * kept CACHE_MS by the injected clock; a failed read says unknown and is not kept, so the next
 * call reads again once T3 answers.
 */
import { type SimGate, startSimGate } from "@t3-connector/test-support/sim-gate";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CACHE_MS, MAX_THREADS_PER_READ, threadChangeReader } from "../../src/app/thread-changes.js";

const PAST = Date.now() - 30 * 60_000;
const COUNT = MAX_THREADS_PER_READ + 2;
let gate: SimGate;

beforeEach(async () => {
  gate = await startSimGate({
    environments: [{ alias: "alpha", projects: [{ id: "p-api", title: "API", workspaceRoot: "/work/api" }] }],
  });
  const alpha = gate.sim.environment("alpha").model;
  for (let index = 0; index < COUNT; index += 1) {
    alpha.addThread({
      id: `t-${index}`,
      projectId: "p-api",
      title: `Thread ${index}`,
      state: "completed",
      message: `[[sim:edit=src/file-${index}.ts|export const n = ${index};]]`,
      at: PAST,
    });
  }
});
afterEach(async () => {
  await gate.close();
});

const threadReads = () =>
  gate.sim.environment("alpha").httpRequests.filter((r) => r.path.startsWith("/api/orchestration/threads/"))
    .length;

describe("the approval pages' change reader", () => {
  it("reads at most its bound of threads a call, and keeps a known answer for its time", async () => {
    const read = threadChangeReader({ registry: gate.registry, clock: gate.clock });
    const environmentId = gate.sim.environment("alpha").environmentId;
    const refs = Array.from({ length: COUNT }, (_, index) => ({ environmentId, threadId: `t-${index}` }));
    const rows = await read(refs);
    expect(rows.slice(0, MAX_THREADS_PER_READ).every((row) => row.line === "1 file changed, +1 -0")).toBe(
      true,
    );
    expect(rows.slice(MAX_THREADS_PER_READ).map((row) => row.line)).toEqual([
      "changes unknown",
      "changes unknown",
    ]);
    expect(threadReads()).toBe(MAX_THREADS_PER_READ);

    await read(refs.slice(0, 3));
    expect(threadReads()).toBe(MAX_THREADS_PER_READ);
    gate.clock.offsetMs += CACHE_MS;
    await read(refs.slice(0, 3));
    expect(threadReads()).toBe(MAX_THREADS_PER_READ + 3);
  });

  it("says unknown for a failed read, keeps nothing of it, and reads again once T3 answers", async () => {
    const read = threadChangeReader({ registry: gate.registry, clock: gate.clock });
    const ref = { environmentId: gate.sim.environment("alpha").environmentId, threadId: "t-0" };
    gate.sim.environment("alpha").faults.set({ httpStatus: 500 });
    expect(await read([ref])).toEqual([{ ...ref, state: "unknown", line: "changes unknown" }]);
    gate.sim.environment("alpha").faults.clear();
    expect(await read([ref])).toEqual([{ ...ref, state: "known", line: "1 file changed, +1 -0" }]);
    expect(await read([{ environmentId: "env-none", threadId: "t-0" }])).toEqual([
      { environmentId: "env-none", threadId: "t-0", state: "unknown", line: "changes unknown" },
    ]);
  });
});
