/**
 * The board's data, from two read tools' structured results: `t3_control_plane` (what needs a
 * person, what runs, what ended) and `t3_since` (what changed since the person last looked).
 * Pure and DOM-free: the view renders it, and tests check it without a browser. Every value read
 * from a result is checked for its type here, since the host hands the view whatever it likes.
 */

export type Section = "needs_you" | "running" | "done";

export interface BoardRow {
  /** Stable across refreshes: environmentId and threadId. */
  key: string;
  section: Section;
  environmentAlias: string;
  environmentId: string;
  /** The machine as people know it: its T3 server's name, else the alias. */
  machine: string;
  project: string;
  threadId: string;
  title: string;
  /** The state word every read tool uses (needs_intervention, running, failed, …). */
  state: string;
  /** Why it needs a person (the read tools' reason), or the run's current step. */
  detail: string;
  /** The instant the age counts from (ISO), or null when no time is known. */
  since: string | null;
  /** `running`: when the run started, when the since tool knows it. */
  runStartedAt: string | null;
  /** A secret request: answered only in T3 itself. */
  answerOnlyInT3: boolean;
  /** What its latest checkpoint changed ("2 files changed, +14 -3"), when the control plane read it. */
  changes: string | null;
}

export interface SinceSummary {
  since: string;
  counts: Record<string, number>;
  /** One line per changed thread: machine, title, what happened. */
  lines: Array<{ key: string; machine: string; title: string; state: string; what: string }>;
}

export interface BoardModel {
  rows: BoardRow[];
  complete: boolean;
  missing: string[];
  generatedAt: string | null;
  sinceSummary: SinceSummary | null;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown, fallback = ""): string {
  return typeof value === "string" ? value : fallback;
}

function listOf(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

function threadsOf(list: unknown): Json[] {
  return isObject(list) ? listOf(list.threads) : [];
}

function environmentOf(item: Json): { alias: string; environmentId: string; machine: string } {
  const environment = isObject(item.environment) ? item.environment : {};
  const alias = text(environment.alias, "?");
  return {
    alias,
    environmentId: text(environment.environmentId, alias),
    machine: text(environment.name, alias),
  };
}

function projectOf(item: Json): string {
  const project = isObject(item.project) ? item.project : {};
  return text(project.title, text(project.projectId, ""));
}

function detailOf(item: Json, section: Section): string {
  if (section === "running") {
    const run = isObject(item.activeRun) ? item.activeRun : {};
    return `step: ${text(run.status, text(item.statusRun, "running"))}`;
  }
  const pending = isObject(item.pendingRequest) ? item.pendingRequest : undefined;
  if (pending !== undefined) return text(pending.reason);
  if (text(item.state) === "failed") return text(item.error, "the latest run failed");
  return text(item.reason, text(item.statusRun));
}

function rowOf(item: Json, section: Section, runStarts: Map<string, string>): BoardRow {
  const environment = environmentOf(item);
  const threadId = text(item.threadId);
  const key = `${environment.environmentId}/${threadId}`;
  const pending = isObject(item.pendingRequest) ? item.pendingRequest : undefined;
  const runStartedAt = runStarts.get(key) ?? null;
  const since =
    section === "running"
      ? (runStartedAt ?? (text(item.updatedAt) || null))
      : text(pending?.since) || text(item.since) || text(item.updatedAt) || null;
  return {
    key,
    section,
    environmentAlias: environment.alias,
    environmentId: environment.environmentId,
    machine: environment.machine,
    project: projectOf(item),
    threadId,
    title: text(item.title, "(untitled)"),
    state: text(item.state, "unknown"),
    detail: detailOf(item, section),
    since,
    runStartedAt,
    answerOnlyInT3: text(item.stateSource) === "secret_request",
    changes: isObject(item.changes) ? text(item.changes.line) || null : null,
  };
}

/** When each thread's newest run started, from a `t3_since` result (`run_started` changes). */
function runStartsOf(since: unknown): Map<string, string> {
  const starts = new Map<string, string>();
  if (!isObject(since)) return starts;
  for (const item of listOf(since.threads)) {
    const key = `${environmentOf(item).environmentId}/${text(item.threadId)}`;
    for (const change of listOf(item.changes)) {
      if (change.kind === "run_started" && typeof change.at === "string") starts.set(key, change.at);
    }
  }
  return starts;
}

const WHAT: Readonly<Record<string, string>> = {
  run_started: "run started",
  run_ended: "run ended",
  asked_for_person: "asked for you",
  thread_created: "created",
  thread_archived: "archived",
  thread_renamed: "renamed",
};

function whatOf(change: Json): string {
  const base = WHAT[text(change.kind)] ?? text(change.kind);
  if (change.kind === "run_ended" && typeof change.runStatus === "string") return `run ${change.runStatus}`;
  return base;
}

function sinceSummaryOf(since: unknown): SinceSummary | null {
  if (!isObject(since) || !isObject(since.counts)) return null;
  const counts: Record<string, number> = {};
  for (const [name, value] of Object.entries(since.counts))
    if (typeof value === "number") counts[name] = value;
  const lines = listOf(since.threads).map((item) => {
    const environment = environmentOf(item);
    return {
      key: `${environment.environmentId}/${text(item.threadId)}`,
      machine: environment.machine,
      title: text(item.title, "(untitled)"),
      state: text(item.state, "unknown"),
      what: listOf(item.changes).map(whatOf).join(", "),
    };
  });
  return { since: text(since.since), counts, lines };
}

/**
 * The board from a control-plane result and a since result (either may be missing or malformed:
 * the board then shows what it has). "Needs you" is every thread needing intervention plus every
 * ended run that failed and nobody settled; "done recently" the other ended, unsettled runs.
 */
export function boardModel(controlPlane: unknown, since: unknown): BoardModel {
  const plane = isObject(controlPlane) ? controlPlane : {};
  const runStarts = runStartsOf(since);
  const ready = threadsOf(plane.ready);
  const rows = [
    ...threadsOf(plane.needsIntervention).map((item) => rowOf(item, "needs_you", runStarts)),
    ...ready.filter((item) => item.state === "failed").map((item) => rowOf(item, "needs_you", runStarts)),
    ...threadsOf(plane.running).map((item) => rowOf(item, "running", runStarts)),
    ...ready.filter((item) => item.state !== "failed").map((item) => rowOf(item, "done", runStarts)),
  ];
  const missing = listOf(plane.environmentFailures).map((failure) => text(failure.alias, "?"));
  return {
    rows,
    complete: plane.complete === true,
    missing,
    generatedAt: text(plane.generatedAt) || null,
    sinceSummary: sinceSummaryOf(since),
  };
}

/** A short age: "now", "4m", "3h", "2d" (null when the time is unknown or unreadable). */
export function shortAge(since: string | null, nowMs: number): string | null {
  if (since === null) return null;
  const ms = Date.parse(since);
  if (!Number.isFinite(ms)) return null;
  const seconds = Math.max(0, Math.round((nowMs - ms) / 1000));
  if (seconds < 60) return "now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/** A title as it may appear inside a prompt: one line, at most 120 characters, JSON-quoted as data. */
function quotedTitle(title: string): string {
  const line = title.replace(/\s+/g, " ").trim();
  return JSON.stringify(line.length > 120 ? `${line.slice(0, 119)}…` : line);
}

/**
 * The prompt "ask the model to act" sends through the host: it names the thread by environment
 * and id (ids mean nothing outside their environment) and says how the read tools reach it. A
 * title is written by whoever runs the agent, so it is quoted as data on one line, and the
 * prompt asks for a proposal: a write still needs the person's approval at the gate.
 */
export function actPrompt(row: BoardRow): string {
  return (
    `On the T3 board, thread ${quotedTitle(row.title)} (environment ${row.environmentAlias}, threadId ${row.threadId}) ` +
    `is ${row.state}. Read it with t3_thread {"environment":"${row.environmentAlias}",` +
    `"threadId":"${row.threadId}"} and tell me what it needs; propose the write action, do not send it without my approval.`
  );
}

/**
 * What "ask for approval" asks the write tool for, where this session has it: a lease for this
 * thread only (ADR 0041), in its environment, with the person's reason in the board's words. The
 * gate's page shows exactly that; the person approves it there with a passkey, or not.
 */
export function approvalRequest(row: BoardRow): Record<string, unknown> {
  const purpose = `Answer thread ${quotedTitle(row.title)} on ${row.environmentAlias}, asked from the agents board`;
  return {
    purpose: purpose.length > 280 ? `${purpose.slice(0, 279)}…` : purpose,
    environments: [row.environmentAlias],
    threads: [row.threadId],
  };
}

/** The prompt "ask for approval" sends: the model asks the write gate for a lease covering this thread. */
export function approvalPrompt(row: BoardRow): string {
  return (
    `Ask the write gate for approval (t3_pedir_aprovacao) to answer thread ${quotedTitle(row.title)} ` +
    `(environment ${row.environmentAlias}, threadId ${row.threadId}), and give me the approval page link; ` +
    "I will approve it there with my passkey."
  );
}
