import { describe, expect, it } from "vitest";
import { traceProofVerdict } from "../support/strace.js";

describe("the strace proof's verdict", () => {
  it("runs wherever strace can trace, CI or not", () => {
    expect(traceProofVerdict(true, {})).toBe("run");
    expect(traceProofVerdict(true, { CI: "true" })).toBe("run");
  });

  it("fails under CI when strace cannot trace", () => {
    expect(traceProofVerdict(false, { CI: "true" })).toBe("fail");
    expect(traceProofVerdict(false, { CI: "1" })).toBe("fail");
  });

  it("skips on a desk without ptrace", () => {
    expect(traceProofVerdict(false, {})).toBe("skip");
    expect(traceProofVerdict(false, { CI: "false" })).toBe("skip");
  });
});
