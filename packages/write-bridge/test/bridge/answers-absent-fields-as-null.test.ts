/**
 * A tool whose output schema is derived from the relay contract (absent-as-null.ts): each field
 * the contract may leave out is required and nullable in the tool's schema, and the tool's answer
 * carries it as null, so a client branches on every key without testing for its presence.
 */
import { RELAY_RESULTS } from "@t3-connector/write-engine/relay-contract";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { absentAsNull, absentAsNullSchema } from "../../src/tools/absent-as-null.js";
import { conditionalSendResultSchema } from "../../src/tools/index.js";

const contract = z.object({ id: z.string(), note: z.string().optional(), count: z.number().nullable() });

describe("a relay answer shaped for a tool's output", () => {
  it("makes each optional field required and nullable and keeps the others as they are", () => {
    const schema = absentAsNullSchema(contract);
    expect(Object.keys(schema.shape)).toEqual(["id", "note", "count"]);
    expect(schema.safeParse({ id: "a", note: null, count: null }).success).toBe(true);
    expect(schema.safeParse({ id: "a", count: 1 }).success).toBe(false);
    expect(schema.safeParse({ id: null, note: "n", count: 1 }).success).toBe(false);
  });

  it("answers an absent field as null and drops a key the schema lacks", () => {
    const schema = absentAsNullSchema(contract);
    const answer = absentAsNull(schema, { id: "a", count: 0, extra: "dropped" });
    expect(answer).toEqual({ id: "a", note: null, count: 0 });
    expect(schema.parse(answer)).toEqual(answer);
  });

  it("gives the conditional send tool every key of the contract's answer, in the contract's order", () => {
    const keys = Object.keys(RELAY_RESULTS.conditional_send.shape);
    expect(Object.keys(conditionalSendResultSchema.shape)).toEqual(keys);
    const required = z.toJSONSchema(conditionalSendResultSchema, { io: "output" }).required;
    expect(required).toEqual(keys);
  });
});
