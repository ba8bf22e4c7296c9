import {
  type BoardLinks,
  boardLinksOf,
  checkedApprovalUrl,
  inboxLink,
  NO_LINKS,
  threadLink,
} from "./board-links.js";
import {
  actPrompt,
  approvalPrompt,
  approvalRequest,
  type BoardModel,
  type BoardRow,
  boardModel,
} from "./board-model.js";
import { HostConnection } from "./host-connection.js";
import { applyHostStyle } from "./host-style.js";
import { type RowAction, render } from "./render.js";

/** The wait tool's ceiling: the board never asks for fresh data more often than a wait allows. */
const REFRESH_EVERY_MS = 5_000;
/** Between two refreshes at least this much, even when several waits return together. */
const MIN_SPACING_MS = 200;
/** Running threads the board follows with the wait tool at once (each is one pending host call). */
const MAX_WAITS = 8;
/** How long after a wait returned the board looks again when the shell did not show it yet. */
const SETTLE_MS = 300;
const LAST_LOOKED_KEY = "t3-connector-board-last-looked";
/** The write tool "ask for approval" calls where the session has it (ADR 0049, 0064). */
const APPROVAL_TOOL = "t3_pedir_aprovacao";
/** How the write tool says a request ended without a lease this session holds. */
const ENDED_DECISIONS: ReadonlySet<unknown> = new Set([
  "approved",
  "denied",
  "expired",
  "superseded",
  "used",
]);
const DAY_MS = 86_400_000;

const root = document.getElementById("board") as HTMLElement;
const notice = document.getElementById("notice") as HTMLElement;
const host = new HostConnection(window.parent);

let model: BoardModel | undefined;
let controlPlane: unknown;
/** What the latest control plane result's facts allow the board to open (ADR 0064). */
let links: BoardLinks = NO_LINKS;
/** One approval request at a time: a second press while one is asked does not ask again. */
let asking = false;
/**
 * The request this board asked for each thread (row key → requestId): pressed again, the board
 * asks the gate about that request instead of making another one, so a lease it already holds is
 * never replaced by a second ask and a pending link is opened again rather than superseded.
 */
const requested = new Map<string, string>();
let sinceResult: unknown;
let sinceInFlight = false;
let refreshing = false;
let queued: string | undefined;
let lastStart = 0;
let fallback: ReturnType<typeof setTimeout> | undefined;
let refreshCount = 0;
let waitRefreshCount = 0;
const waiting = new Set<string>();
/**
 * Threads whose wait returned without a change the board can see (still running after the
 * refresh it caused): not waited on again until they leave "running", so a wait that keeps
 * returning at once never turns into polling.
 */
const restless = new Set<string>();
const wokenBy = new Set<string>();
const settling = new Set<string>();
const lastLooked = readLastLooked();

/**
 * "Since you last looked": the time this view was last opened, when the sandbox lets the view keep
 * it (many hosts give it no storage), else the last day.
 */
function readLastLooked(): string {
  const now = Date.now();
  let previous: string | null = null;
  try {
    previous = window.localStorage.getItem(LAST_LOOKED_KEY);
    window.localStorage.setItem(LAST_LOOKED_KEY, new Date(now).toISOString());
  } catch {
    // No storage in this sandbox: the board falls back to the last day.
  }
  const ms = previous === null ? Number.NaN : Date.parse(previous);
  return new Date(Number.isFinite(ms) && ms < now ? ms : now - DAY_MS).toISOString();
}

function draw(): void {
  if (model === undefined) return;
  render(root, model, Date.now(), { links, onAction });
  host.notify("ui/notifications/size-changed", { height: document.documentElement.scrollHeight });
}

async function onAction(row: BoardRow, action: RowAction): Promise<void> {
  if (action === "open") return openInT3(row);
  if (action === "inbox") return openInbox(row);
  if (action === "approval" && links.approvalOrigin !== null) return askForApproval(row);
  return askTheModel(row, action === "act" ? actPrompt(row) : approvalPrompt(row));
}

/** Asks the host to open `url`; a host that will not still leaves the link readable as text. */
async function openLink(url: string, what: string): Promise<void> {
  try {
    const result = (await host.request("ui/open-link", { url })) as { isError?: unknown } | undefined;
    notice.textContent =
      result?.isError === true ? `The host did not open ${what}: ${url}` : `Opened ${what}.`;
  } catch (error) {
    notice.textContent = `The host did not open ${what} (${(error as Error).message}): ${url}`;
  }
}

function openInT3(row: BoardRow): Promise<void> {
  const url = threadLink(links, row.environmentId, row.threadId);
  if (url !== undefined) return openLink(url, `"${row.title}" in T3`);
  notice.textContent = `No web address of T3 is known for ${row.machine}: answer in T3 there.`;
  return Promise.resolve();
}

/** The person's inbox item for this thread, opened only on the inbox origin the facts name. */
function openInbox(row: BoardRow): Promise<void> {
  const url = inboxLink(links, row.environmentId, row.threadId);
  if (url !== undefined) return openLink(url, `"${row.title}" in the inbox`);
  notice.textContent = "No inbox item is known for this thread: answer in T3.";
  return Promise.resolve();
}

/**
 * The write tool of this session asks the gate for a lease for this thread; its approval page is
 * opened only on the approval origin the server's facts name. Asking grants nothing: the person
 * approves on that page with a passkey, or not.
 */
async function askForApproval(row: BoardRow): Promise<void> {
  if (asking) return;
  asking = true;
  notice.textContent = `Asking for approval to answer "${row.title}"…`;
  try {
    const earlier = requested.get(row.key);
    const args = earlier === undefined ? approvalRequest(row) : { requestId: earlier };
    const { structured } = await host.callToolResult(APPROVAL_TOOL, args);
    if (structured.authorized === true) {
      notice.textContent = "This session already holds an open lease: ask the model to act.";
      return;
    }
    if (structured.decision !== "pending") {
      requested.delete(row.key);
      notice.textContent = ENDED_DECISIONS.has(structured.decision)
        ? `The request was ${structured.decision}: press again to ask anew.`
        : "The answer carried no approval link: ask the model for it.";
      return;
    }
    if (typeof structured.requestId === "string") requested.set(row.key, structured.requestId);
    const checked = checkedApprovalUrl(links, structured.approvalUrl);
    if (!checked.ok) {
      notice.textContent = `The approval page was not opened: ${checked.reason}.`;
      return;
    }
    await openLink(checked.url, "the approval page");
  } catch (error) {
    notice.textContent = `Could not ask for approval: ${(error as Error).message}`;
  } finally {
    asking = false;
  }
}

async function askTheModel(row: BoardRow, prompt: string): Promise<void> {
  try {
    const result = (await host.request("ui/message", {
      role: "user",
      content: [{ type: "text", text: prompt }],
    })) as { isError?: unknown } | undefined;
    notice.textContent =
      result?.isError === true
        ? "The host did not take the message."
        : `Asked the model about "${row.title}".`;
  } catch (error) {
    notice.textContent = `The host did not take the message: ${(error as Error).message}`;
  }
}

/**
 * One refresh: the control plane is read and drawn at once; "since you last looked" is read
 * beside it (one read at a time) and drawn when it answers, so a slow since read (it also reads
 * each machine's archive) never holds back a run that just ended.
 */
async function refresh(reason: string): Promise<void> {
  refreshing = true;
  lastStart = Date.now();
  readSince();
  try {
    const answer = await host.callToolResult("t3_control_plane", { limit: 50 });
    controlPlane = answer.structured;
    links = boardLinksOf(answer.meta);
  } catch (error) {
    notice.textContent = `Could not refresh: ${(error as Error).message}`;
  }
  model = boardModel(controlPlane, sinceResult);
  refreshCount += 1;
  if (reason === "wait") waitRefreshCount += 1;
  document.body.dataset.refreshes = String(refreshCount);
  document.body.dataset.waitRefreshes = String(waitRefreshCount);
  document.body.dataset.lastReason = reason;
  draw();
  followRunning(model.rows);
  refreshing = false;
  clearTimeout(fallback);
  fallback = setTimeout(() => schedule("timer"), REFRESH_EVERY_MS);
  if (queued !== undefined) {
    const next = queued;
    queued = undefined;
    schedule(next);
  }
}

function readSince(): void {
  if (sinceInFlight) return;
  sinceInFlight = true;
  host
    .callTool("t3_since", { since: lastLooked })
    .then(
      (value) => {
        sinceResult = value;
        if (controlPlane === undefined) return;
        model = boardModel(controlPlane, sinceResult);
        draw();
      },
      () => undefined,
    )
    .finally(() => {
      sinceInFlight = false;
    });
}

/** Refreshes now, or after the one in flight, never closer than MIN_SPACING_MS to the last one. */
function schedule(reason: string): void {
  if (refreshing) {
    queued = reason;
    return;
  }
  const wait = lastStart + MIN_SPACING_MS - Date.now();
  if (wait > 0) {
    setTimeout(() => schedule(reason), wait);
    return;
  }
  void refresh(reason);
}

/** Event-driven updates: a wait per running thread returns as soon as its run ends or needs a person. */
function followRunning(rows: BoardRow[]): void {
  const running = rows.filter((candidate) => candidate.section === "running");
  const stillRunning = new Set(running.map((row) => row.key));
  // T3 may send a thread's shell row up to 50 ms after its thread stream said the run ended (it
  // coalesces shell rows): a woken thread still shown running gets one more refresh shortly
  // after; still running then, it is restless.
  for (const key of settling) if (stillRunning.has(key)) restless.add(key);
  settling.clear();
  for (const key of wokenBy) {
    if (!stillRunning.has(key)) continue;
    settling.add(key);
    setTimeout(() => schedule("wait"), SETTLE_MS);
  }
  wokenBy.clear();
  for (const key of restless) if (!stillRunning.has(key)) restless.delete(key);
  for (const row of running) {
    if (waiting.size >= MAX_WAITS || waiting.has(row.key) || restless.has(row.key)) continue;
    waiting.add(row.key);
    host
      .callTool("t3_aguardar_thread", {
        environment: row.environmentId,
        threadId: row.threadId,
        timeoutMs: 5_000,
      })
      .then((result) => {
        waiting.delete(row.key);
        if (result.timedOut === true) return;
        wokenBy.add(row.key);
        schedule("wait");
      })
      .catch(() => waiting.delete(row.key));
  }
}

host.on("ui/notifications/host-context-changed", (params) => applyHostStyle(params));

host.on("ui/notifications/tool-result", (params) => {
  // The host's own call of the linked tool: drawn at once, before the board's first refresh.
  if (model !== undefined || typeof params.structuredContent !== "object") return;
  controlPlane = params.structuredContent;
  links = boardLinksOf(params._meta);
  model = boardModel(controlPlane, undefined);
  draw();
});

async function start(): Promise<void> {
  try {
    const answer = await host.initialize({ name: "t3-connector board", version: "1" });
    applyHostStyle(answer.hostContext);
  } catch (error) {
    notice.textContent = `The host did not start the board: ${(error as Error).message}`;
    return;
  }
  schedule("start");
  // Ages move on their own: redrawn twice a minute from the data already held, no host call.
  setInterval(draw, 30_000);
}

void start();
