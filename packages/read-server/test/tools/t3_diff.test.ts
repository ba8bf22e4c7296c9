import { DIFF_CAPS } from "@t3-connector/core/diff";
import { type SimReadSetup, startSimRead } from "@t3-connector/test-support/sim-context";
import { toolInputError } from "@t3-connector/test-support/tool-input-error";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { t3DiffTool } from "../../src/tools/t3_diff.js";
import { t3ThreadTool } from "../../src/tools/t3_thread.js";
import { t3WorktreeTool } from "../../src/tools/t3_worktree.js";

interface FileOut {
  path: string;
  previousPath?: string;
  status: string;
  additions: number;
  deletions: number;
  binary: boolean;
  patch: string;
  truncated: boolean;
}
interface DiffOut {
  files: FileOut[];
  totals: { files: number; additions: number; deletions: number };
  truncated: boolean;
  complete: boolean;
  note?: string;
  nextCursor?: string;
  runId: string | null;
  fromTurnCount: number;
  toTurnCount: number;
}

const PAST = Date.now() - 30 * 60_000;
const ROOT = "/home/sim/code/main";
const WORKTREE = "/home/sim/code/main-fix";
let setup: SimReadSetup;
/** Every `cwd` the alpha environment was asked about, in order. */
const askedFolders: string[] = [];

beforeAll(async () => {
  setup = await startSimRead({
    simulator: {
      environments: [
        { alias: "alpha", environmentId: "env-alpha", seed: "empty" },
        {
          alias: "old",
          environmentId: "env-old",
          seed: "empty",
          lacksMethods: [
            "orchestration.getTurnDiff",
            "orchestration.getFullThreadDiff",
            "vcs.refreshStatus",
            "vcs.listRefs",
          ],
        },
      ],
    },
    definitions: [t3DiffTool, t3WorktreeTool, t3ThreadTool],
    allowedProjects: { alpha: ["p-main", "p-bulk"], old: ["p-old"] },
  });
  const alpha = setup.sim.environment("alpha").model;
  const callUnary = alpha.callUnary.bind(alpha);
  alpha.callUnary = (tag, payload) => {
    if (tag.startsWith("vcs.")) askedFolders.push(String((payload as { cwd?: unknown }).cwd));
    return callUnary(tag, payload);
  };
  alpha.addProject({ id: "p-main", title: "main", workspaceRoot: ROOT });
  alpha.addProject({ id: "p-hidden", title: "hidden", workspaceRoot: "/home/sim/code/hidden" });
  alpha.addThread({
    id: "t-edit",
    projectId: "p-main",
    title: "Edit two files",
    state: "completed",
    message: "[[sim:edit=src/app.ts|export const app = 2;]] [[sim:edit=docs/notes.md|a note]]",
    at: PAST,
  });
  alpha.addThread({
    id: "t-ask",
    projectId: "p-main",
    title: "Question",
    state: "waiting_user_input",
    at: PAST,
  });
  alpha.addThread({ id: "t-hidden", projectId: "p-hidden", title: "Secret", state: "completed", at: PAST });
  // Its own project, so its 2,000 files stay out of the other threads' folder.
  alpha.addProject({ id: "p-bulk", title: "bulk", workspaceRoot: "/home/sim/code/bulk" });
  alpha.addThread({
    id: "t-bulk",
    projectId: "p-bulk",
    title: "Generate a lot",
    state: "completed",
    message: "[[sim:bulk=2000|2600]]",
    at: PAST,
  });
  const old = setup.sim.environment("old").model;
  old.addProject({ id: "p-old", title: "old", workspaceRoot: "/home/sim/code/old" });
  old.addThread({ id: "t-old", projectId: "p-old", title: "Old T3", state: "completed", at: PAST });
});
afterAll(async () => {
  await setup?.close();
});

async function sendAndComplete(threadId: string, text: string): Promise<void> {
  const model = setup.sim.environment("alpha").model;
  await model.callUnary("orchestration.dispatchCommand", {
    commandId: `c-${Math.random()}`,
    type: "message.dispatch",
    threadId,
    messageId: `m-${Math.random()}`,
    text,
    attachments: [],
    createdBy: "user",
    creationSource: "mcp",
    dispatchMode: { type: "start_immediately" },
  });
  // Wait on the thread's own state, not on time: its newest run has completed.
  for (;;) {
    const out = await setup.call("t3_thread", { environment: "alpha", threadId });
    if ((out.latestRun as { status?: string } | null)?.status === "completed" && out.state !== "running")
      return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe("t3_diff", () => {
  it("lists the files the latest run changed, with patches", async () => {
    const out = (await setup.call("t3_diff", {
      environment: "alpha",
      threadId: "t-edit",
    })) as unknown as DiffOut;
    expect(out.files.map((file) => [file.path, file.status])).toEqual([
      ["docs/notes.md", "added"],
      ["src/app.ts", "added"],
    ]);
    for (const file of out.files) {
      expect(file.additions).toBeGreaterThan(0);
      expect(file.patch).toContain("@@");
      expect(file.truncated).toBe(false);
    }
    expect(out).toMatchObject({
      totals: { files: 2, additions: 2, deletions: 0 },
      truncated: false,
      complete: true,
    });
    expect(out.fromTurnCount).toBe(0);
    expect(out.toTurnCount).toBe(1);
  });

  it("gives the whole thread at least the latest run's totals, saying when T3 lost its base", async () => {
    await sendAndComplete("t-edit", "[[sim:edit=src/app.ts|export const more = 3;]]");
    const run = (await setup.call("t3_diff", {
      environment: "alpha",
      threadId: "t-edit",
    })) as unknown as DiffOut;
    expect(run.files.map((file) => file.path)).toEqual(["src/app.ts"]);
    expect(run).toMatchObject({ fromTurnCount: 1, toTurnCount: 2, complete: true });
    const thread = (await setup.call("t3_diff", {
      environment: "alpha",
      threadId: "t-edit",
      scope: "thread",
    })) as unknown as DiffOut;
    expect(thread.totals.files).toBeGreaterThanOrEqual(run.totals.files);
    expect(thread.totals.additions).toBeGreaterThanOrEqual(run.totals.additions);
    // The simulator plays 0.0.31, which loses the ref before run 1 once run 2 starts (fixture 133).
    expect(thread.complete).toBe(false);
    expect(thread.note).toContain("2 files changed, +2 -0");
  });

  it("shows an earlier run by its id, and one file by its path", async () => {
    const thread = await setup.call("t3_thread", { environment: "alpha", threadId: "t-edit" });
    expect(thread.changes).toMatchObject({
      files: 1,
      additions: 1,
      deletions: 0,
      line: "1 file changed, +1 -0",
    });
    const first = (thread.changes as { runId: string }).runId.replace(/ordinal:2$/, "ordinal:1");
    const earlier = (await setup.call("t3_diff", {
      environment: "alpha",
      threadId: "t-edit",
      runId: first,
    })) as unknown as DiffOut;
    // 0.0.31 can no longer diff run 1 (its base is gone): the files its checkpoint records, no patch.
    expect(earlier).toMatchObject({ runId: first, toTurnCount: 1, complete: false, truncated: true });
    expect(earlier.files.map((file) => [file.path, file.additions, file.patch])).toEqual([
      ["docs/notes.md", 1, ""],
      ["src/app.ts", 1, ""],
    ]);
    const one = (await setup.call("t3_diff", {
      environment: "alpha",
      threadId: "t-edit",
      path: "src/app.ts",
    })) as unknown as DiffOut;
    expect(one.files).toHaveLength(1);
    expect(one.files[0]?.patch).toContain("+export const more = 3;");
  });

  it("answers an empty diff for a thread whose run left no checkpoint", async () => {
    const out = (await setup.call("t3_diff", {
      environment: "alpha",
      threadId: "t-ask",
    })) as unknown as DiffOut;
    expect(out).toMatchObject({
      files: [],
      totals: { files: 0, additions: 0, deletions: 0 },
      truncated: false,
    });
    expect(out.note).toContain("no run of this thread has left a checkpoint");
  });

  it("pages a 2,000-file, 5 MB diff by file, no answer over its cap", async () => {
    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    let totals: DiffOut["totals"] | undefined;
    do {
      const result = await setup.client.callTool({
        name: "t3_diff",
        arguments: { environment: "alpha", threadId: "t-bulk", ...(cursor ? { cursor } : {}) },
      });
      const out = result.structuredContent as unknown as DiffOut;
      expect(Buffer.byteLength(JSON.stringify(out))).toBeLessThanOrEqual(
        DIFF_CAPS.answerMaxBytes + DIFF_CAPS.envelopeBytes,
      );
      for (const file of out.files) seen.add(file.path);
      totals = out.totals;
      cursor = out.nextCursor;
      if (cursor) expect(out.truncated).toBe(true);
      pages += 1;
    } while (cursor);
    expect(totals?.files).toBeGreaterThanOrEqual(2000);
    expect(seen.size).toBe(totals?.files);
    expect(pages).toBeGreaterThan(10);
    // Each page reads and parses the whole 5 MB diff again (T3 does not page it): on a loaded
    // two-core machine the dozen pages take far longer than the tier's 20 s default.
  }, 120_000);

  it("refuses a cursor of another diff", async () => {
    const first = (await setup.call("t3_diff", {
      environment: "alpha",
      threadId: "t-bulk",
    })) as unknown as DiffOut;
    const text = await setup.callError("t3_diff", {
      environment: "alpha",
      threadId: "t-edit",
      cursor: first.nextCursor,
    });
    expect(text).toMatch(/^invalid_cursor: /);
  });

  it("answers a thread outside the client's projects exactly as t3_thread does", async () => {
    const diff = await setup.callError("t3_diff", { environment: "alpha", threadId: "t-hidden" });
    const thread = await setup.callError("t3_thread", { environment: "alpha", threadId: "t-hidden" });
    expect(diff).toBe(thread);
    expect(await setup.callError("t3_worktree", { environment: "alpha", threadId: "t-hidden" })).toBe(thread);
  });

  it("answers the typed 'this T3 lacks it' error, naming the RPC, on a T3 without it", async () => {
    expect(await setup.callError("t3_diff", { environment: "old", threadId: "t-old" })).toMatch(
      /^action_unsupported: this T3 lacks orchestration\.getTurnDiff/,
    );
    expect(await setup.callError("t3_worktree", { environment: "old", threadId: "t-old" })).toMatch(
      /^action_unsupported: this T3 lacks vcs\.refreshStatus/,
    );
  });
});

describe("t3_worktree", () => {
  it("answers the branch and the uncommitted files of the project's root", async () => {
    const out = await setup.call("t3_worktree", { environment: "alpha", threadId: "t-edit" });
    expect(out).toMatchObject({
      folder: { path: ROOT, source: "project_root" },
      isRepo: true,
      branch: "main",
      isDefaultBranch: true,
      hasWorkingTreeChanges: true,
      upstream: { hasUpstream: false, ahead: 0, behind: 0 },
      pullRequest: null,
    });
    const files = (out.workingTree as { files: { path: string }[] }).files.map((file) => file.path);
    expect(files).toContain("src/app.ts");
    expect(out.worktrees).toEqual([{ branch: "main", path: ROOT, isThreadFolder: true }]);
  });

  it("uses the thread's own worktree and lists the project's worktrees", async () => {
    const model = setup.sim.environment("alpha").model;
    model.addThread({ id: "t-fix", projectId: "p-main", title: "Fix on a branch", at: PAST });
    await model.callUnary("orchestration.dispatchCommand", {
      commandId: "c-fix-branch",
      type: "thread.metadata.update",
      threadId: "t-fix",
      branch: "fix/login",
      worktreePath: WORKTREE,
    });
    const out = await setup.call("t3_worktree", { environment: "alpha", threadId: "t-fix" });
    expect(out).toMatchObject({
      folder: { path: WORKTREE, source: "thread_worktree" },
      branch: "fix/login",
      isDefaultBranch: false,
      hasWorkingTreeChanges: false,
    });
    expect(out.worktrees).toEqual([
      { branch: "main", path: ROOT, isThreadFolder: false },
      { branch: "fix/login", path: WORKTREE, isThreadFolder: true },
    ]);
  });

  it("never asks T3 about a folder the client names", async () => {
    askedFolders.length = 0;
    expect(
      await toolInputError(setup.client, "t3_worktree", {
        environment: "alpha",
        threadId: "t-edit",
        cwd: "/etc",
      }),
    ).toBeDefined();
    expect(
      await toolInputError(setup.client, "t3_diff", {
        environment: "alpha",
        threadId: "t-edit",
        cwd: "/etc",
      }),
    ).toBeDefined();
    const out = (await setup.call("t3_diff", {
      environment: "alpha",
      threadId: "t-edit",
      path: "../../../../etc/passwd",
    })) as unknown as DiffOut;
    expect(out.files).toEqual([]);
    await setup.call("t3_worktree", { environment: "alpha", threadId: "t-edit" });
    expect(new Set(askedFolders)).toEqual(new Set([ROOT]));
  });
});
