import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { GUARD_LOG_LINES_PER_WINDOW } from "../../src/process-guard/index.js";

const child = fileURLToPath(new URL("./guarded-child.mjs", import.meta.url));

interface ChildReport {
  waiting: string;
  answered: string;
  caught: number;
  lines: string[];
}

function runChild(): Promise<{ code: number | null; report: ChildReport }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    proc.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    proc.stderr.resume();
    proc.once("error", reject);
    proc.once("close", (code) => resolve({ code, report: JSON.parse(stdout || "null") as ChildReport }));
  });
}

describe("the process guard", () => {
  it("logs each stray rejection with its call, fails only a call still waiting, and the process lives on", async () => {
    const { code, report } = await runChild();
    expect(code).toBe(0);
    expect(report.waiting).toBe("internal");
    expect(report.answered).toBe("ok");
    expect(report.caught).toBe(34);
    const [first, second, third] = report.lines;
    expect(first).toContain("in tools/call stuck_tool, which now fails");
    expect(first).toContain("detached failure");
    expect(second).toContain("in tools/call quick_tool, after it answered");
    expect(second).toContain("late failure");
    expect(third).toContain("outside any call");
    expect(third).toContain("still serving");
  });

  it("writes at most its window's share of lines in a flood, then says how many it left out", async () => {
    const { report } = await runChild();
    const failures = report.lines.filter((line) => line.includes("nobody waited for"));
    // 20 lines in the first window (34 rejections before the clock moved), then one more after it.
    expect(failures).toHaveLength(GUARD_LOG_LINES_PER_WINDOW + 1);
    expect(report.lines).toContain(
      `child-server: ${33 - GUARD_LOG_LINES_PER_WINDOW} more unexpected failures were not logged`,
    );
    expect(report.lines.at(-1)).toContain("after the window");
  });
});
