import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson, hashInput, journalKey } from "../../src/journal/index.js";

const identity = {
  environmentId: "env-a",
  destination: "t3://env-a",
  caller: "channel:o|tunnel:1",
  operationId: "op-1",
};

describe("canonical JSON", () => {
  it("sorts keys at every depth and writes no whitespace", () => {
    expect(canonicalJson({ b: 1, a: [true, null, "x", { d: 2, c: 1 }] })).toBe(
      '{"a":[true,null,"x",{"c":1,"d":2}],"b":1}',
    );
  });

  it("gives the same text for the same value built in another key order", () => {
    const one = { threadId: "t", modelSelection: { model: "m", options: { effort: "high", fast: true } } };
    const two = { modelSelection: { options: { fast: true, effort: "high" }, model: "m" }, threadId: "t" };
    expect(canonicalJson(one)).toBe(canonicalJson(two));
    expect(hashInput("thread.send", one)).toBe(hashInput("thread.send", two));
  });

  it("leaves out undefined properties, as an absent optional field means the same input", () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe(canonicalJson({ a: 1 }));
  });

  it("writes a Date through its toJSON", () => {
    expect(canonicalJson({ at: new Date(Date.UTC(2026, 0, 2)) })).toBe('{"at":"2026-01-02T00:00:00.000Z"}');
  });

  it.each([
    ["a number that is not finite", { n: Number.NaN }],
    ["an infinite number", [Number.POSITIVE_INFINITY]],
    ["a bigint", { n: 1n }],
    ["a function", { f: () => 1 }],
    ["undefined inside an array", [1, undefined]],
    ["a Map (it would hash like {})", { m: new Map([["a", 1]]) }],
  ])("refuses %s instead of hashing it silently", (_label, value) => {
    expect(() => canonicalJson(value)).toThrow(expect.objectContaining({ code: "invalid_input" }));
  });

  it("refuses a cycle", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(expect.objectContaining({ code: "invalid_input" }));
  });

  it("hashes the action with the input, so the same input under another action differs", () => {
    expect(hashInput("thread.send", { a: 1 })).not.toBe(hashInput("thread.interrupt", { a: 1 }));
    expect(hashInput("thread.send", { a: 1 })).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("journal key", () => {
  it("is the SHA-256 hex of the v2 tuple (environmentId, destination, caller, operationId)", () => {
    const expected = createHash("sha256")
      .update(JSON.stringify(["v2", "env-a", "t3://env-a", "channel:o|tunnel:1", "op-1"]))
      .digest("hex");
    expect(journalKey(identity)).toBe(expected);
  });

  it("scopes the operationId: another environment, destination or caller is another operation", () => {
    const key = journalKey(identity);
    expect(journalKey({ ...identity, environmentId: "env-b", destination: "t3://env-b" })).not.toBe(key);
    expect(journalKey({ ...identity, destination: "t3://other" })).not.toBe(key);
    expect(journalKey({ ...identity, caller: "channel:o|tunnel:2" })).not.toBe(key);
    expect(journalKey({ ...identity })).toBe(key);
  });

  it("refuses an empty part instead of hashing it", () => {
    expect(() => journalKey({ ...identity, operationId: "" })).toThrow(
      expect.objectContaining({ code: "invalid_input" }),
    );
  });
});
