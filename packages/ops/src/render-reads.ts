/**
 * Terminal renderings of the reads that mirror the read tools (`thread`, `read`, `list`,
 * `projects`, `providers`, `timeline`). They take the tools' answers as plain records: the JSON a
 * script gets is the contract; these lines are for a person and show what they act on.
 */
import type { ThreadState } from "@t3-connector/core/state";
import { organisationMarks, STATE_ICON } from "./status-icons.js";

type Row = Record<string, unknown>;

const text = (value: unknown): string => (typeof value === "string" ? value : "");
const rows = (value: unknown): Row[] => (Array.isArray(value) ? (value as Row[]) : []);

function stateLine(thread: Row): string {
  const state = text(thread.state) as ThreadState;
  const marks = organisationMarks({
    pinned: thread.pinned === true,
    settled: thread.settled === true,
    snoozedUntil: typeof thread.snoozedUntil === "string" ? thread.snoozedUntil : null,
  });
  const icon = STATE_ICON[state] ?? "?";
  return `${icon} ${state}${marks.length === 0 ? "" : `  [${marks.join(", ")}]`}`;
}

/** What the environment envelope said was missing: never hidden on a terminal either. */
function failures(value: Row): string[] {
  return rows(value.environmentFailures).map(
    (failure) => `✕ ${text(failure.alias)}: ${text(failure.code)}: ${text(failure.reason)}`,
  );
}

export function renderThread(value: Row): string {
  const environment = (value.environment ?? {}) as Row;
  const lines = [
    `${text(value.title)}  ${text(value.threadId)}  (${text(environment.alias)})`,
    `  ${stateLine(value)}${value.reason === undefined ? "" : `: ${text(value.reason)}`}`,
  ];
  for (const request of rows(value.pendingRequests)) {
    lines.push(
      `  ◆ waiting on: ${text(request.reason)}${request.detail ? ` — ${text(request.detail)}` : ""}`,
    );
  }
  const latest = value.latestResponse as Row | null | undefined;
  if (latest && typeof latest.text === "string") lines.push("", latest.text);
  return `${lines.join("\n")}\n`;
}

export function renderThreadList(value: Row): string {
  const lines = rows(value.threads).map(
    (thread) => `${stateLine(thread).padEnd(28)} ${text(thread.title)}  ${text(thread.threadId)}`,
  );
  if (lines.length === 0) lines.push("(no threads)");
  if (typeof value.note === "string") lines.push(value.note);
  if (value.truncated === true) lines.push(`more: --cursor ${text(value.nextCursor)}`);
  return `${[...lines, ...failures(value)].join("\n")}\n`;
}

export function renderProjects(value: Row): string {
  const lines = rows(value.projects).map(
    (project) => `${text(project.title).padEnd(24)} ${text(project.projectId)}  ${text(project.directory)}`,
  );
  if (lines.length === 0) lines.push("(no projects)");
  return `${[...lines, ...failures(value)].join("\n")}\n`;
}

export function renderProviders(value: Row): string {
  const lines: string[] = [];
  for (const provider of rows(value.providers)) {
    lines.push(`${text(provider.instanceId).padEnd(16)} ${text(provider.status)}`);
    for (const model of rows(provider.models)) {
      lines.push(
        `  ${text(model.slug).padEnd(28)} ${text(model.name)}${model.isDefault === true ? "  (default)" : ""}`,
      );
    }
  }
  if (lines.length === 0) lines.push("(no providers)");
  return `${[...lines, ...failures(value)].join("\n")}\n`;
}

export function renderTimeline(value: Row): string {
  const lines = rows(value.messages).map(
    (message) => `[${text(message.createdAt)}] ${text(message.role)}: ${text(message.text)}`,
  );
  if (lines.length === 0) lines.push("(no messages)");
  return `${lines.join("\n\n")}\n`;
}
