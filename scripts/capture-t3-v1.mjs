// Captures what a real protocol-1 T3 (0.0.28, Orchestrator V1) answers to the calls the connector
// makes, into fixtures/t3-0.0.28/: the descriptor, the token's session, the shell (V1 rows), the
// routes protocol 2 reads, and what its WebSocket says to our RPCs. Read-only: the only command
// sent is one its schema must reject (an empty `thread.create`), so nothing is written. `14` sends
// a method it lacks and, on the same socket, two it serves (the diff and version-control reads of
// issue 41): its connection-level defect fails only the first; CAPTURE_OUT writes elsewhere.
// Usage: T3_REAL_URL=http://127.0.0.1:3792 T3_REAL_READ_TOKEN_FILE=<file> node scripts/capture-t3-v1.mjs
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = process.env.CAPTURE_OUT ?? path.join(root, "fixtures", "t3-0.0.28");
const base = process.env.T3_REAL_URL ?? "http://127.0.0.1:3792";
const token = readFileSync(process.env.T3_REAL_READ_TOKEN_FILE ?? "", "utf8").trim();
mkdirSync(out, { recursive: true });

const save = (name, request, response, note) =>
  writeFileSync(path.join(out, `${name}.json`), `${JSON.stringify({ request, response, note }, null, 2)}\n`);

async function http(name, method, route, { auth = true, protocol = false, note }) {
  const headers = {};
  if (auth) headers.authorization = "Bearer <read token>";
  if (protocol) headers["x-t3-orchestration-protocol"] = "2";
  const real = { ...headers };
  if (auth) real.authorization = `Bearer ${token}`;
  const answer = await fetch(`${base}${route}`, { method, headers: real });
  const text = await answer.text();
  const type = answer.headers.get("content-type");
  let body = text;
  try {
    body = JSON.parse(text);
  } catch {}
  save(
    name,
    { method, path: route, headers },
    { status: answer.status, headers: { "content-type": type }, body },
    note,
  );
  return body;
}

const descriptor = await http("01-http-descriptor", "GET", "/.well-known/t3/environment", {
  auth: false,
  note: "0.0.28 (protocol 1): no orchestrationProtocolVersion.",
});
const session = await http("02-http-auth-session-read", "GET", "/api/auth/session", {
  note: "A token paired with exactly orchestration:read.",
});
const shell = await http("03-http-shell-v1-rows", "GET", "/api/orchestration/shell", {
  protocol: true,
  note: "V1 shell: no schemaVersion; rows carry latestTurn, session, hasPendingApprovals and no status.",
});
const threadId = shell.threads?.[0]?.id ?? "none";
await http("04-http-projects", "GET", "/api/projects", {
  note: "No such route on 0.0.28: the web app's page.",
});
await http("05-http-thread", "GET", `/api/orchestration/threads/${threadId}`, {
  protocol: true,
  note: "The V2 thread read on a V1 server.",
});
await http("06-http-thread-bounded", "GET", `/api/orchestration/threads/${threadId}/bounded`, {
  protocol: true,
  note: "The bounded thread read on a V1 server.",
});

const ticketAnswer = await fetch(`${base}/api/auth/websocket-ticket`, {
  method: "POST",
  headers: { authorization: `Bearer ${token}` },
});
const ticket = (await ticketAnswer.json()).ticket;
const socket = new WebSocket(
  `${base.replace(/^http/, "ws")}/ws?wsTicket=${encodeURIComponent(ticket)}&orchestrationProtocol=2`,
);
await new Promise((resolve, reject) => {
  socket.once("open", resolve);
  socket.once("error", reject);
});
const received = [];
socket.on("message", (data) => {
  for (const frame of [JSON.parse(String(data))].flat()) received.push(frame);
});
const calls = [
  [
    "10-ws-launchThread",
    "orchestration.launchThread",
    { commandId: "capture-launch", projectId: "none", title: "x" },
  ],
  ["11-ws-getThreadProjection", "orchestration.getThreadProjection", { threadId }],
  [
    "12-ws-dispatch-schema-invalid",
    "orchestration.dispatchCommand",
    { type: "thread.create", commandId: "capture-invalid" },
  ],
  ["13-ws-subscribeShell", "orchestration.subscribeShell", { requestCompletionMarker: true }],
];
let id = 1;
for (const [name, tag, payload] of calls) {
  const request = { _tag: "Request", id: String(id++), tag, payload, headers: [] };
  const before = received.length;
  socket.send(JSON.stringify(request));
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline && received.length === before) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 300));
  const frames = received.slice(before).filter((frame) => frame._tag !== "Pong");
  save(
    name,
    { method: "GET", path: "/ws?wsTicket=<ticket>&orchestrationProtocol=2", ws_frames_sent: [request] },
    { status: 101, ws_frames_received: frames },
    `${tag} on 0.0.28 (read token).`,
  );
  if (tag === "orchestration.subscribeShell")
    socket.send(JSON.stringify({ _tag: "Interrupt", requestId: request.id }));
}
{
  // A lacked method, then two served ones, sent together: which frames answer which.
  const sent = [
    ["orchestration.getThreadProjection", { threadId }],
    ["vcs.refreshStatus", { cwd: "/" }],
    ["orchestration.getTurnDiff", { threadId, fromTurnCount: 0, toTurnCount: 1 }],
  ].map(([tag, payload]) => ({ _tag: "Request", id: String(id++), tag, payload, headers: [] }));
  const ids = new Set(sent.map((request) => request.id));
  const before = received.length;
  for (const request of sent) socket.send(JSON.stringify(request));
  const deadline = Date.now() + 5000;
  // Frames with no request id (the Defect), or answering one of these; not the stream's late end.
  const ours = () =>
    received
      .slice(before)
      .filter(
        (frame) => frame._tag !== "Pong" && (frame.requestId === undefined || ids.has(frame.requestId)),
      );
  const answered = () => ours().length;
  while (Date.now() < deadline && answered() < sent.length) await new Promise((r) => setTimeout(r, 50));
  save(
    "14-ws-unknown-tag-then-served",
    { method: "GET", path: "/ws?wsTicket=<ticket>&orchestrationProtocol=2", ws_frames_sent: sent },
    { status: 101, ws_frames_received: ours() },
    "A lacked method's Defect carries no request id and the socket stays open: the next two are answered (0.0.28 serves the diff and vcs reads).",
  );
}
socket.close();
console.log(
  JSON.stringify({
    version: descriptor.serverVersion,
    scopes: session.scopes,
    threads: shell.threads?.length,
  }),
);
