import { ThreadShellSchema } from "@t3-connector/core/t3";
import { cachedThreadSummary, type ItemEnvironment, threadItem } from "@t3-connector/mcp-tools/read-answers";
import { describe, expect, it } from "vitest";

const environment: ItemEnvironment = { alias: "alpha", environmentId: "env-alpha", name: null };
const WAKES_AT = Date.parse("2026-01-01T00:00:10.000Z");

function snoozedRow(title: string) {
  return ThreadShellSchema.parse({
    id: "thread-1",
    projectId: "project-1",
    title,
    status: "idle",
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    snoozedAt: "2026-01-01T00:00:00.000Z",
    snoozedUntil: new Date(WAKES_AT).toISOString(),
    lastVisitedAt: null,
  });
}

describe("cached thread items", () => {
  it("reuses an unchanged row's item but judges the woke marker at every call's own instant", () => {
    const row = snoozedRow("Snoozed");
    const asleep = threadItem(environment, row, WAKES_AT - 1_000, undefined);
    expect(asleep).toMatchObject({ title: "Snoozed", woke: false, wokeAt: null });
    expect(threadItem(environment, row, WAKES_AT - 500, undefined)).toBe(asleep);

    const awake = threadItem(environment, row, WAKES_AT + 1, undefined);
    expect(awake).toMatchObject({ title: "Snoozed", woke: true, wokeAt: new Date(WAKES_AT).toISOString() });
    // Back before the wake instant (a clock moved back): the marker follows `now`, not the cache.
    expect(threadItem(environment, row, WAKES_AT - 1, undefined)).toMatchObject({ woke: false });
    expect(cachedThreadSummary(row, WAKES_AT + 1, undefined)).toMatchObject({ woke: true });
    expect(cachedThreadSummary(row, WAKES_AT - 1, undefined)).toMatchObject({ woke: false });
  });

  it("recomputes when the row, its project or the environment changed", () => {
    const row = snoozedRow("Before");
    const now = WAKES_AT - 1_000;
    const first = threadItem(environment, row, now, undefined);
    expect(threadItem(environment, snoozedRow("After"), now, undefined).title).toBe("After");

    const project = { id: "project-1", title: "Named project" };
    expect(threadItem(environment, row, now, project).project).toEqual({
      projectId: "project-1",
      title: "Named project",
    });
    const renamed = { ...environment, name: "Alpha laptop" };
    expect(threadItem(renamed, row, now, project).environment).toEqual(renamed);
    expect(first.environment).toEqual(environment);
  });

  it("hands out frozen items, so a caller cannot corrupt the next call's answer", () => {
    const item = threadItem(environment, snoozedRow("Frozen"), WAKES_AT - 1_000, undefined);
    expect(Object.isFrozen(item)).toBe(true);
    expect({ ...item, archived: true }.archived).toBe(true);
  });
});
