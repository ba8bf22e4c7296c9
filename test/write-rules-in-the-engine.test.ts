import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Every write rule lives in the engine (ADR 0038): the gate's relay ops hand the write to the
// engine and record what it answers; they neither check command support nor parse an action's
// input (the engine's outcome names the thread a write targets). ops applies command support with
// the very functions the engine's dispatcher calls.

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const read = (file: string) => readFileSync(path.join(root, file), "utf8");

describe("the write rules the gate and ops no longer hold themselves", () => {
  it("relay-ops.ts neither checks command support nor parses action inputs", () => {
    const source = read("packages/write-gate/src/relay/relay-ops.ts");
    expect(source).not.toMatch(/write-engine\/capabilities/);
    expect(source).not.toMatch(/write-engine\/actions/);
    expect(source).not.toMatch(/\b(safeParse|prepareAction|getAction|supportsAction|commandSupport)\b/);
  });

  it("ops refuses and learns command support through the engine's own rule", () => {
    const source = read("packages/ops/src/act.ts");
    expect(source).toMatch(/\brefuseUnsupportedAction\(/);
    expect(source).toMatch(/\blearnFromRefusal\(/);
    expect(source).not.toMatch(/commandSupport\.of\(/);
    const dispatcher = read("packages/write-engine/src/dispatch/dispatcher.ts");
    expect(dispatcher).toMatch(/\brefuseUnsupportedAction\(/);
    expect(dispatcher).toMatch(/\blearnFromRefusal\(/);
  });
});
