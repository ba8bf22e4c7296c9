// Captures how a real T3 0.0.31 answers the diff and VCS reads (fixtures/t3-0.0.31/120–134),
// in the fixtures' own format ({request, response, note}; README there). Run by hand against a
// server started with the scripted Codex (docs/testing-against-real-t3.md):
//
//   T3_REAL_URL=http://127.0.0.1:3781 T3_REAL_READ_TOKEN_FILE=… T3_REAL_OPERATE_TOKEN_FILE=… \
//   CAPTURE_WORKSPACE=<a folder the server may write> node scripts/capture-vcs-diff-fixtures.mjs
//
// It makes a git repository (main, a side branch checked out in a second worktree), a project on
// it, and a thread whose two runs EDIT files; then, over a socket of the READ token only, it asks
// for the turn and thread diffs and the VCS status and refs, and writes each exchange.
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const WebSocket = createRequire(path.join(ROOT, "packages/core/package.json"))("ws");
const URL_ = (process.env.T3_REAL_URL ?? "http://127.0.0.1:3773").replace(/\/+$/, "");
const readToken = readFileSync(process.env.T3_REAL_READ_TOKEN_FILE, "utf8").trim();
const operateToken = readFileSync(process.env.T3_REAL_OPERATE_TOKEN_FILE, "utf8").trim();
const WORKSPACE = path.resolve(process.env.CAPTURE_WORKSPACE ?? "/tmp");
const OUT = path.join(ROOT, "fixtures/t3-0.0.31");
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** One socket; every frame it sends or receives is kept with its place on the wire. */
async function openSocket(token) {
  const url = new URL(`${URL_}/ws`);
  url.protocol = "ws:";
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` }, perMessageDeflate: false });
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  const opened = Date.now();
  let seq = 0;
  let nextId = 1;
  const log = [];
  const waiting = new Map();
  ws.on("message", (data) => {
    const parsed = JSON.parse(String(data));
    for (const frame of Array.isArray(parsed) ? parsed : [parsed]) {
      log.push({ dir: "received", timed: { seq: ++seq, t_ms: Date.now() - opened, frame } });
      if (frame._tag === "Exit") waiting.get(String(frame.requestId))?.(frame);
    }
  });
  const send = (frame) => {
    log.push({ dir: "sent", timed: { seq: ++seq, t_ms: Date.now() - opened, frame } });
    ws.send(JSON.stringify(frame));
  };
  const ping = setInterval(() => send({ _tag: "Ping" }), 5000);
  return {
    async call(tag, payload) {
      const id = String(nextId++);
      const exit = new Promise((resolve) => waiting.set(id, resolve));
      send({ _tag: "Request", id, tag, payload, headers: [] });
      const frame = await exit;
      waiting.delete(id);
      const mine = log.filter(
        ({ timed }) => timed.frame.id === id || String(timed.frame.requestId ?? "") === id,
      );
      return { frame, mine };
    },
    close() {
      clearInterval(ping);
      ws.close();
    },
  };
}

function write(name, exchange, note) {
  const fixture = {
    request: {
      method: "GET",
      path: "/ws",
      headers: { authorization: "Bearer <token>" },
      ws_frames_sent: exchange.mine.filter((entry) => entry.dir === "sent").map((entry) => entry.timed),
      connection: "bearer header (read-only token)",
    },
    response: {
      status: 101,
      ws_frames_received: exchange.mine
        .filter((entry) => entry.dir === "received")
        .map((entry) => entry.timed),
    },
    note,
  };
  writeFileSync(path.join(OUT, `${name}.json`), `${JSON.stringify(fixture, null, 2)}\n`);
  console.log(`wrote ${name}`);
}

const value = (exchange) => {
  if (exchange.frame.exit._tag !== "Success")
    throw new Error(JSON.stringify(exchange.frame.exit).slice(0, 800));
  return exchange.frame.exit.value;
};

// 1. the repository: main with three files, a side branch in its own worktree
const stamp = Date.now();
const repo = path.join(WORKSPACE, `vcs-capture-${stamp}`);
const side = path.join(WORKSPACE, `vcs-capture-${stamp}-side`);
const outside = path.join(WORKSPACE, `vcs-capture-${stamp}-plain`);
mkdirSync(repo, { recursive: true });
mkdirSync(outside, { recursive: true });
const git = (...args) =>
  execFileSync("git", ["-c", "user.name=capture", "-c", "user.email=capture@example.invalid", ...args], {
    cwd: repo,
    stdio: ["ignore", "pipe", "pipe"],
  }).toString();
git("init", "-q", "-b", "main");
writeFileSync(path.join(repo, "README.md"), "# capture\n");
writeFileSync(path.join(repo, "notes.txt"), "first line\n");
mkdirSync(path.join(repo, "src"));
writeFileSync(path.join(repo, "src/app.ts"), "export const app = 1;\n");
git("add", ".");
git("commit", "-q", "-m", "init");
git("worktree", "add", "-q", "-b", "feature/side", side);

// 2. a project on it and a thread whose two runs edit files (operate token)
const operate = await openSocket(operateToken);
const projectId = randomUUID();
const created = await fetch(`${URL_}/api/projects/mutate`, {
  method: "POST",
  headers: { authorization: `Bearer ${operateToken}`, "content-type": "application/json" },
  body: JSON.stringify({
    type: "project.create",
    commandId: randomUUID(),
    projectId,
    title: "VCS capture",
    workspaceRoot: repo,
    createWorkspaceRootIfMissing: true,
  }),
});
if (!created.ok) throw new Error(`project.create ${created.status}`);
const launched = value(
  await operate.call("orchestration.launchThread", {
    commandId: randomUUID(),
    creationSource: "web",
    projectId,
    title: "VCS capture",
    modelSelection: { instanceId: "codex", model: "gpt-5.6-sol" },
    runtimeMode: "full-access",
    interactionMode: "default",
    workspaceStrategy: { type: "root" },
    initialMessage: {
      text: "EDIT notes.txt hello from run one\nEDIT src/new-file.ts export const added = true;",
      attachments: [],
    },
  }),
);
const threadId = launched.threadId;
async function waitCheckpoint(ordinal) {
  for (let tries = 0; tries < 240; tries += 1) {
    const projection = value(await operate.call("orchestration.getThreadProjection", { threadId }));
    const run = projection.runs.find((candidate) => candidate.ordinal === ordinal);
    const checkpoint = projection.checkpoints.find(
      (c) => c.appRunOrdinal === ordinal && c.status === "ready",
    );
    if (run?.status === "completed" && checkpoint) return;
    if (run && ["failed", "cancelled", "interrupted"].includes(run.status))
      throw new Error(`run ${ordinal} ${run.status}`);
    await sleep(250);
  }
  throw new Error(`run ${ordinal} never completed`);
}
await waitCheckpoint(1);
// While the thread has one run, T3 serves the diff from before it (from turn 0).
const early = await openSocket(readToken);
const oneRun = (text) => `${text} (thread with one EDIT run on a fresh repository; scripted Codex)`;
write(
  "121-ws-getTurnDiff-run-1",
  await early.call("orchestration.getTurnDiff", { threadId, fromTurnCount: 0, toTurnCount: 1 }),
  oneRun("getTurnDiff 0→1: the first run's changes, a new file among them"),
);
write(
  "123-ws-getFullThreadDiff",
  await early.call("orchestration.getFullThreadDiff", { threadId, toTurnCount: 1 }),
  oneRun("getFullThreadDiff to 1: the same changes as the one run's diff"),
);
early.close();
value(
  await operate.call("orchestration.dispatchCommand", {
    commandId: randomUUID(),
    type: "message.dispatch",
    createdBy: "user",
    creationSource: "web",
    threadId,
    messageId: randomUUID(),
    text: "EDIT notes.txt and from run two\nEDIT README.md a second heading line",
    attachments: [],
    dispatchMode: { type: "start_immediately" },
  }),
);
await waitCheckpoint(2);
operate.close();

// 3. the reads, over a read-only socket
const read = await openSocket(readToken);
const said = (text) => `${text} (thread of two EDIT runs on a fresh repository; scripted Codex)`;
write(
  "120-ws-getThreadProjection-checkpoints",
  await read.call("orchestration.getThreadProjection", { threadId }),
  said("getThreadProjection after two completed runs: `checkpoints` with per-file additions/deletions"),
);
write(
  "122-ws-getTurnDiff-run-2",
  await read.call("orchestration.getTurnDiff", { threadId, fromTurnCount: 1, toTurnCount: 2 }),
  said("getTurnDiff 1→2: the second run's changes only"),
);
write(
  "133-ws-getTurnDiff-from-0-after-two-runs",
  await read.call("orchestration.getTurnDiff", { threadId, fromTurnCount: 0, toTurnCount: 2 }),
  said(
    "getTurnDiff 0→2 once a second run exists: the base ref is no longer found (the root scope now names run 2)",
  ),
);
write(
  "134-ws-getFullThreadDiff-after-two-runs",
  await read.call("orchestration.getFullThreadDiff", { threadId, toTurnCount: 2 }),
  said("getFullThreadDiff to 2: the same refusal, since it is getTurnDiff from 0"),
);
write(
  "124-ws-getTurnDiff-past-latest",
  await read.call("orchestration.getTurnDiff", { threadId, fromTurnCount: 2, toTurnCount: 3 }),
  said("getTurnDiff past the latest checkpoint: the typed range error"),
);
write(
  "125-ws-getTurnDiff-same-count",
  await read.call("orchestration.getTurnDiff", { threadId, fromTurnCount: 2, toTurnCount: 2 }),
  said("getTurnDiff with from = to: an empty diff, no lookup"),
);
write(
  "126-ws-vcs-refreshStatus-repo",
  await read.call("vcs.refreshStatus", { cwd: repo }),
  said("vcs.refreshStatus on the project's root after the runs: the branch, the uncommitted files"),
);
write(
  "127-ws-vcs-refreshStatus-worktree",
  await read.call("vcs.refreshStatus", { cwd: side }),
  said("vcs.refreshStatus on a second worktree of the same repository (branch feature/side)"),
);
write(
  "128-ws-vcs-refreshStatus-not-a-repo",
  await read.call("vcs.refreshStatus", { cwd: outside }),
  said("vcs.refreshStatus on a folder that is not a repository"),
);
write(
  "129-ws-vcs-refreshStatus-missing-folder",
  await read.call("vcs.refreshStatus", { cwd: path.join(outside, "absent") }),
  said("vcs.refreshStatus on a folder that does not exist"),
);
write(
  "130-ws-vcs-listRefs-repo",
  await read.call("vcs.listRefs", { cwd: repo }),
  said("vcs.listRefs on the project's root: each ref with its worktree path"),
);
write(
  "131-ws-vcs-listRefs-paged",
  await read.call("vcs.listRefs", { cwd: repo, limit: 1 }),
  said("vcs.listRefs with limit 1: the first page and its numeric nextCursor"),
);
write(
  "132-ws-vcs-listRefs-not-a-repo",
  await read.call("vcs.listRefs", { cwd: outside }),
  said("vcs.listRefs on a folder that is not a repository"),
);
read.close();
console.log(JSON.stringify({ threadId, projectId, repo, side, outside }));
