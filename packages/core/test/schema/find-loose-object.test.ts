import { describe, expect, it } from "vitest";
import * as z from "zod";
import { findLooseObject } from "../../src/schema/index.js";

describe("strict input check", () => {
  it("accepts inputs whose objects are all strict", () => {
    const schema = z.strictObject({
      environment: z.string().optional(),
      items: z.array(z.strictObject({ threadId: z.string() })).min(1),
      filter: z.strictObject({ woke: z.boolean() }).nullable().default(null),
      mode: z.union([z.literal("a"), z.strictObject({ exact: z.string() })]),
    });
    expect(findLooseObject(schema)).toBeUndefined();
  });

  it.each([
    ["the top level", z.object({ a: z.string() }), "input"],
    ["a loose object", z.looseObject({}), "input"],
    ["an array item", z.strictObject({ items: z.array(z.object({ id: z.string() })) }), "input.items[]"],
    ["an optional nested object", z.strictObject({ f: z.object({}).optional() }), "input.f"],
    ["a union member", z.strictObject({ m: z.union([z.string(), z.object({})]) }), "input.m"],
    ["a record value", z.strictObject({ r: z.record(z.string(), z.object({})) }), "input.r.*"],
  ])("finds a non-strict object in %s", (_label, schema, path) => {
    expect(findLooseObject(schema)).toBe(path);
  });
});
