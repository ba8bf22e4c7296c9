import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runOps } from "./support/cli-run.js";
import { type SimOps, startSimOps } from "./support/sim-ops.js";

let setup: SimOps;
let env: Record<string, string>;
const PAST = Date.now() - 30 * 60_000;

beforeAll(async () => {
  setup = await startSimOps({ environments: [{ alias: "alpha", seed: "empty" }] });
  env = { T3_CONNECTOR_OPS_CONFIG: setup.configPath };
  const model = setup.env("alpha").model;
  model.addProject({ id: "p-web", title: "website", workspaceRoot: "/home/sim/code/website" });
  model.addRepository("/home/sim/code/website", {
    "README.md": "# website\n",
    "src/footer.ts": "export const footer = 'old';\n",
  });
  model.addThread({
    id: "t-footer",
    projectId: "p-web",
    title: "Fix footer",
    state: "completed",
    message:
      "[[sim:edit=src/footer.ts|export const year = 2026;]] [[sim:edit=src/header.ts|export const header = 1;]] [[sim:delete=README.md]]",
    at: PAST,
  });
});
afterAll(async () => {
  await setup?.close();
});

describe("t3-connector-ops diff and worktree", () => {
  it("diff --stat prints one line per file and the total, as git diff --stat", async () => {
    const run = await runOps(["diff", "alpha:Fix footer", "--stat"], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        " README.md     | 1 -",
        " src/footer.ts | 1 +",
        " src/header.ts | 1 +",
        " 3 files changed, 2 insertions(+), 1 deletion(-)",
        "",
      ].join("\n"),
    );
  });

  it("diff prints the unified diff, coloured only on a terminal", async () => {
    const piped = await runOps(["diff", "alpha:Fix footer"], { env });
    expect(piped.code).toBe(0);
    expect(piped.stdout).toContain("diff --git a/src/footer.ts b/src/footer.ts\n");
    expect(piped.stdout).toContain("\n+export const year = 2026;\n");
    expect(piped.stdout).not.toContain("\x1b[");
    const tty = await runOps(["diff", "alpha:Fix footer"], { env, tty: true });
    expect(tty.stdout).toContain("\x1b[32m+export const year = 2026;\x1b[0m");
    expect(tty.stdout).toContain("\x1b[31m-# website\x1b[0m");
    const json = await runOps(["diff", "alpha:Fix footer", "--json"], { env });
    expect((json.json() as { totals: unknown }).totals).toEqual({ files: 3, additions: 2, deletions: 1 });
  });

  it("refuses --run with --thread", async () => {
    const run = await runOps(["diff", "alpha:Fix footer", "--thread", "--run", "r1"], { env });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("invalid_input: give at most one of --run and --thread");
  });

  it("worktree prints the folder, its branch and the uncommitted files", async () => {
    const run = await runOps(["worktree", "alpha:Fix footer"], { env, tty: true });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("/home/sim/code/website  (the project's root)\n");
    expect(run.stdout).toContain("branch main (default), no upstream");
    expect(run.stdout).toContain("  src/footer.ts  +1 -0\n");
  });
});
