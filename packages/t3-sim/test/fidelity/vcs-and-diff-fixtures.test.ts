/**
 * The capture of fixtures 120–134 (scripts/capture-vcs-diff-fixtures.mjs), played again on the
 * simulator: a project on a repository, a side branch in its own worktree, a thread whose two
 * runs edit files. The answers must have the captured shapes and, where the simulated files are
 * the captured ones, the captured values.
 */
import { parseUnifiedDiff } from "@t3-connector/core/diff";
import { describe, expect, it } from "vitest";
import { fixture, fixtureExit, type Json, makeModel, send, shapeOf } from "../model/helpers.js";

const ROOT = "/home/dev/code/capture";
const SIDE = "/home/dev/code/capture-side";

function captured(name: string): Json {
  const exit = fixtureExit(`${name}.json`);
  return exit._tag === "Success"
    ? { kind: "success", value: exit.value }
    : { kind: "fail", error: exit.cause[0].error };
}

const lastExitOf = (name: string): Json =>
  fixture(`${name}.json`).response.ws_frames_received.at(-1).frame.exit;

async function captureState() {
  const { model, clock } = makeModel({ compat: "0.0.31" });
  model.addProject({ id: "p-capture", title: "VCS capture", workspaceRoot: ROOT });
  // The capture's first commit (scripts/capture-vcs-diff-fixtures.mjs).
  model.addRepository(ROOT, {
    "README.md": "# capture\n",
    "notes.txt": "first line\n",
    "src/app.ts": "export const app = 1;\n",
  });
  const threadId = model.addThread({ id: "t-capture", projectId: "p-capture", title: "VCS capture" });
  // The side worktree belongs to a thread of the same project (how T3 knows a worktree's branch).
  model.addThread({ id: "t-side", projectId: "p-capture", title: "side" });
  await model.callUnary("orchestration.dispatchCommand", {
    commandId: "c-side",
    type: "thread.metadata.update",
    threadId: "t-side",
    branch: "feature/side",
    worktreePath: SIDE,
  });
  await send(
    model,
    threadId,
    "[[sim:edit=notes.txt|hello from run one]] [[sim:edit=src/new-file.ts|export const added = true;]]",
  );
  clock.advance(1_000);
  const early = {
    run1: await model.callUnary("orchestration.getTurnDiff", { threadId, fromTurnCount: 0, toTurnCount: 1 }),
    full1: await model.callUnary("orchestration.getFullThreadDiff", { threadId, toTurnCount: 1 }),
  };
  await send(
    model,
    threadId,
    "[[sim:edit=notes.txt|and from run two]] [[sim:edit=README.md|a second heading line]]",
  );
  clock.advance(1_000);
  return { model, threadId, early };
}

describe("diffs and VCS reads follow the real 0.0.31 (fixtures 120–134)", () => {
  it("answers the run and thread diffs, and their refusals, in the captured shapes", async () => {
    const { model, threadId, early } = await captureState();
    expect(shapeOf(early.run1)).toEqual(shapeOf(captured("121-ws-getTurnDiff-run-1")));
    expect(shapeOf(early.full1)).toEqual(shapeOf(captured("123-ws-getFullThreadDiff")));
    const run1 = parseUnifiedDiff((early.run1 as Json).value.diff);
    expect(run1.files.map((file) => [file.path, file.status, file.additions])).toEqual(
      parseUnifiedDiff(lastExitOf("121-ws-getTurnDiff-run-1").value.diff).files.map((file) => [
        file.path,
        file.status,
        file.additions,
      ]),
    );

    const run2 = await model.callUnary("orchestration.getTurnDiff", {
      threadId,
      fromTurnCount: 1,
      toTurnCount: 2,
    });
    expect(shapeOf(run2)).toEqual(shapeOf(captured("122-ws-getTurnDiff-run-2")));
    expect(parseUnifiedDiff((run2 as Json).value.diff).files.map((file) => file.path)).toEqual([
      "README.md",
      "notes.txt",
    ]);

    const past = await model.callUnary("orchestration.getTurnDiff", {
      threadId,
      fromTurnCount: 2,
      toTurnCount: 3,
    });
    expect(shapeOf(past)).toEqual(shapeOf(captured("124-ws-getTurnDiff-past-latest")));
    expect((past as Json).error.cause.message).toContain("requested 3, current 2.");
    const same = await model.callUnary("orchestration.getTurnDiff", {
      threadId,
      fromTurnCount: 2,
      toTurnCount: 2,
    });
    expect(same).toEqual({
      kind: "success",
      value: { ...captured("125-ws-getTurnDiff-same-count").value, threadId },
    });

    for (const [name, answer] of [
      [
        "133-ws-getTurnDiff-from-0-after-two-runs",
        await model.callUnary("orchestration.getTurnDiff", { threadId, fromTurnCount: 0, toTurnCount: 2 }),
      ],
      [
        "134-ws-getFullThreadDiff-after-two-runs",
        await model.callUnary("orchestration.getFullThreadDiff", { threadId, toTurnCount: 2 }),
      ],
    ] as const) {
      expect(shapeOf(answer)).toEqual(shapeOf(captured(name)));
      expect((answer as Json).error.cause.name).toBe("CheckpointRefUnavailableError");
    }
  });

  it("keeps per-file counts on each checkpoint, as the captured projection does", async () => {
    const { model, threadId } = await captureState();
    const projection = (await model.callUnary("orchestration.getThreadProjection", { threadId })) as Json;
    const real = lastExitOf("120-ws-getThreadProjection-checkpoints").value;
    const files = (checkpoints: Json[]) =>
      checkpoints
        .filter((checkpoint) => checkpoint.appRunOrdinal !== null)
        .map((checkpoint) => [checkpoint.appRunOrdinal, checkpoint.files]);
    expect(files(projection.value.checkpoints)).toEqual(files(real.checkpoints));
  });

  it("answers vcs.refreshStatus for the root, a worktree and other folders like the real one", async () => {
    const { model } = await captureState();
    const status = (cwd: string) => model.callUnary("vcs.refreshStatus", { cwd });
    const root = (await status(ROOT)) as Json;
    expect(shapeOf(root)).toEqual(shapeOf(captured("126-ws-vcs-refreshStatus-repo")));
    expect(root.value).toEqual(captured("126-ws-vcs-refreshStatus-repo").value);
    expect((await status(SIDE)) as Json).toEqual(captured("127-ws-vcs-refreshStatus-worktree"));
    expect(await status("/home/dev/plain")).toEqual(captured("128-ws-vcs-refreshStatus-not-a-repo"));
    expect(await status("/home/dev/plain/absent")).toEqual(
      captured("129-ws-vcs-refreshStatus-missing-folder"),
    );
  });

  it("answers vcs.listRefs with worktree paths and an offset cursor like the real one", async () => {
    const { model } = await captureState();
    const withPaths = (answer: Json) =>
      JSON.parse(JSON.stringify(answer).replaceAll(SIDE, "<side>").replaceAll(ROOT, "<root>"));
    const realPaths = (name: string) =>
      JSON.parse(
        JSON.stringify(captured(name))
          .replace(/\/[^"]*vcs-capture-\d+-side/g, "<side>")
          .replace(/\/[^"]*vcs-capture-\d+/g, "<root>"),
      );
    expect(withPaths(await model.callUnary("vcs.listRefs", { cwd: ROOT }))).toEqual(
      realPaths("130-ws-vcs-listRefs-repo"),
    );
    expect(withPaths(await model.callUnary("vcs.listRefs", { cwd: ROOT, limit: 1 }))).toEqual(
      realPaths("131-ws-vcs-listRefs-paged"),
    );
    expect(await model.callUnary("vcs.listRefs", { cwd: "/home/dev/plain" })).toEqual(
      captured("132-ws-vcs-listRefs-not-a-repo"),
    );
  });

  it("answers an unknown tag for a method an environment is set to lack", async () => {
    const { model } = makeModel({ lacksMethods: ["vcs.refreshStatus"] });
    expect(await model.callUnary("vcs.refreshStatus", { cwd: ROOT })).toEqual({
      kind: "die",
      defect: "Unknown request tag: vcs.refreshStatus",
    });
    expect(model.knownTags()).not.toContain("vcs.refreshStatus");
  });
});
