/** The fidelity test is only as good as its comparison: these cases prove it can fail. */
import { describe, expect, it } from "vitest";
import { compareValues, type Difference } from "./shape.js";
import { compareTranscript } from "./ws-compare.js";

function differences(expected: unknown, actual: unknown): string[] {
  const out: Difference[] = [];
  compareValues(expected, actual, "body", out);
  return out.map((difference) => difference.path);
}

describe("the shape comparison", () => {
  it("ignores ids, timestamps and sequences but not their types", () => {
    expect(differences({ id: "a", sequence: 4 }, { id: "b", sequence: 99 })).toEqual([]);
    expect(differences({ sequence: 4 }, { sequence: "4" })).toEqual(["body.sequence"]);
  });

  it("reports missing and extra fields by JSON path", () => {
    expect(
      differences({ thread: { title: "x", pinnedAt: null } }, { thread: { title: "y", extra: 1 } }),
    ).toEqual(["body.thread.pinnedAt", "body.thread.extra"]);
  });

  it("notes null where the capture has a value and the reverse", () => {
    expect(differences({ lastError: null }, { lastError: "boom" })).toEqual(["body.lastError"]);
    expect(differences({ lastError: "boom" }, { lastError: null })).toEqual(["body.lastError"]);
  });

  it("compares error tags, codes, reasons and item kinds by value", () => {
    expect(differences({ _tag: "A", code: "auth_invalid" }, { _tag: "B", code: "auth_invalid" })).toEqual([
      "body._tag",
    ]);
    expect(differences({ reason: "missing_credential" }, { reason: "invalid_credential" })).toEqual([
      "body.reason",
    ]);
  });

  it("summarises arrays by the union of their elements, grouped by discriminator", () => {
    const captured = [
      { type: "message", text: "a" },
      { type: "message", text: "b" },
      { type: "run_interrupt_request" },
    ];
    expect(
      differences(captured, [{ type: "message", text: "z" }, { type: "run_interrupt_request" }]),
    ).toEqual([]);
    expect(differences(captured, [{ type: "message", text: 1 }])).toEqual([
      "body[type=message].text",
      "body[type=run_interrupt_request]",
    ]);
    expect(differences(captured, [])).toEqual(["body[]"]);
  });

  it("notes a field that every captured element has but some simulated elements lack", () => {
    const captured = [
      { id: "a", title: "x" },
      { id: "b", title: "y" },
    ];
    expect(differences(captured, [{ id: "a", title: "x" }, { id: "b" }])).toEqual(["body[].title"]);
    expect(differences([{ id: "a", title: "x" }, { id: "b" }], captured)).toEqual(["body[].title"]);
  });

  it("fails a transcript whose frames or item order differ", () => {
    const chunk = (kinds: string[]) => ({
      dir: "received" as const,
      frame: { _tag: "Chunk", requestId: "1", values: kinds.map((kind) => ({ kind })) },
    });
    const request = { dir: "sent" as const, frame: { _tag: "Request", id: "1" } };
    const same = compareTranscript(
      [request, chunk(["snapshot", "synchronized"])],
      [request, chunk(["snapshot", "synchronized"])],
      "",
    );
    expect(same).toEqual([]);
    const reordered = compareTranscript(
      [request, chunk(["snapshot", "synchronized"])],
      [request, chunk(["synchronized", "snapshot"])],
      "",
    );
    expect(reordered.map((difference) => difference.path)).toEqual(["frames"]);
    const missing = compareTranscript([request, chunk(["snapshot"])], [request], "");
    expect(missing.map((difference) => difference.path)).toEqual(["frames"]);
  });
});
