import { describe, expect, it } from "vitest";
import { READ_ONLY_ANNOTATIONS } from "../../src/read-tool.js";
import { assertReadToolList, READ_TOOL_NAMES, readToolListProblems } from "../../src/read-tool-list.js";
import { readToolDefinitions } from "../../src/tools/index.js";
import { fakeTool } from "../support/fake-tools.js";

describe("the read tool list", () => {
  it("is exactly the fifteen tools of the contract, each read-only", () => {
    expect([...readToolDefinitions.map((tool) => tool.name)].sort()).toEqual([...READ_TOOL_NAMES].sort());
    expect(readToolListProblems(readToolDefinitions)).toEqual([]);
    for (const tool of readToolDefinitions) expect(tool.annotations).toEqual(READ_ONLY_ANNOTATIONS);
  });

  it("accepts the fifteen names in any order", () => {
    expect(() =>
      assertReadToolList([...READ_TOOL_NAMES].reverse().map((name) => fakeTool(name))),
    ).not.toThrow();
  });

  it("names a missing, an extra and a repeated tool", () => {
    const list = [...READ_TOOL_NAMES.slice(1), "t3_escrever_thread_send", "t3_threads"].map((name) =>
      fakeTool(name),
    );
    const problems = readToolListProblems(list).join("; ");
    expect(problems).toContain("missing: t3_ambientes");
    expect(problems).toContain("not a read tool of the contract: t3_escrever_thread_send");
    expect(problems).toContain("defined twice: t3_threads");
  });

  it("refuses a tool that does not declare every read-only hint", () => {
    const list = READ_TOOL_NAMES.map((name) =>
      name === "t3_thread"
        ? fakeTool(name, { ...READ_ONLY_ANNOTATIONS, destructiveHint: true })
        : fakeTool(name),
    );
    expect(() => assertReadToolList(list)).toThrow(/t3_thread is not declared read-only \(destructiveHint\)/);
  });
});
