import { type BoardLinks, inboxLink, threadLink } from "./board-links.js";
import { type BoardModel, type BoardRow, type Section, type SinceSummary, shortAge } from "./board-model.js";

/**
 * What a row's buttons ask the host for; the view itself never writes anything. "open" opens T3's
 * own page for the thread; "approval" asks for a lease (the write tool, where the session has
 * it, then the approval page) or asks the model to; "act" asks the model.
 */
export type RowAction = "act" | "approval" | "open" | "inbox";

export interface RenderHooks {
  /** The links the session's facts allow (T3's web origins, the approval origin). */
  links: BoardLinks;
  onAction(row: BoardRow, action: RowAction): void;
}

const SECTIONS: ReadonlyArray<{ section: Section; id: string; heading: string; empty: string }> = [
  { section: "needs_you", id: "needs-you", heading: "Needs you", empty: "Nothing waits for you." },
  { section: "running", id: "running", heading: "Running", empty: "No run in progress." },
  { section: "done", id: "done", heading: "Done recently", empty: "No ended run waits to be looked at." },
];

const COUNT_WORDS: ReadonlyArray<[string, string]> = [
  ["runsStarted", "started"],
  ["runsEnded", "ended"],
  ["runsFailed", "failed"],
  ["askedForPerson", "asked for you"],
  ["threadsCreated", "created"],
  ["threadsArchived", "archived"],
  ["threadsRenamed", "renamed"],
];

/** An element with text content only: data from the host never becomes markup. */
function el(tag: string, className: string, content?: string): HTMLElement {
  const node = document.createElement(tag);
  if (className !== "") node.className = className;
  if (content !== undefined) node.textContent = content;
  return node;
}

function actionButton(row: BoardRow, action: RowAction, label: string, hooks: RenderHooks): HTMLElement {
  const button = el("button", "action", label);
  button.setAttribute("type", "button");
  button.dataset.focusKey = `${row.key}#${action}`;
  button.setAttribute("aria-label", `${label}: ${row.title} on ${row.machine}`);
  button.addEventListener("click", () => hooks.onAction(row, action));
  return button;
}

function rowActions(row: BoardRow, hooks: RenderHooks): HTMLElement {
  const actions = el("div", "actions");
  // The person's inbox item, on the issuer origin only (ADR 0073): answered there with a passkey.
  if (inboxLink(hooks.links, row.environmentId, row.threadId) !== undefined) {
    actions.append(actionButton(row, "inbox", "Answer in inbox", hooks));
  }
  // T3's own page where its web origin is known; else the row says where to go, in words.
  if (threadLink(hooks.links, row.environmentId, row.threadId) !== undefined) {
    actions.append(actionButton(row, "open", "Open in T3", hooks));
  } else {
    actions.append(el("span", "hint", `Answer in T3 on ${row.machine}`));
  }
  actions.append(actionButton(row, "act", "Ask the model to act", hooks));
  // A secret is answered only in T3 itself: no write, so no approval to ask for. Without the write
  // tool in this session, the model is asked to ask for it (another server may have it).
  if (!row.answerOnlyInT3) {
    const label = hooks.links.approvalOrigin === null ? "Ask the model for approval" : "Ask for approval";
    actions.append(actionButton(row, "approval", label, hooks));
  }
  return actions;
}

function rowItem(row: BoardRow, nowMs: number, hooks: RenderHooks): HTMLElement {
  const item = el("li", "row");
  item.dataset.key = row.key;
  item.dataset.state = row.state;
  const head = el("div", "row-head");
  head.append(el("span", "title", row.title), el("span", `state state-${row.state}`, row.state));
  const age = shortAge(row.since, nowMs);
  const elapsed = row.section === "running" && row.runStartedAt !== null ? `for ${age}` : age;
  const meta = [row.machine, row.project, elapsed].filter((part): part is string => !!part).join(" · ");
  item.append(head, el("div", "meta", meta));
  if (row.detail !== "") item.append(el("div", "detail", row.detail));
  if (row.changes !== null) item.append(el("div", "changes", row.changes));
  if (row.section === "needs_you") item.append(rowActions(row, hooks));
  return item;
}

function sectionElement(
  spec: (typeof SECTIONS)[number],
  rows: BoardRow[],
  nowMs: number,
  hooks: RenderHooks,
): HTMLElement {
  const section = el("section", "group");
  section.setAttribute("aria-labelledby", `${spec.id}-heading`);
  const heading = el("h2", "", `${spec.heading} `);
  heading.id = `${spec.id}-heading`;
  heading.append(el("span", "count", String(rows.length)));
  const list = el("ul", "rows");
  list.id = spec.id;
  for (const row of rows) list.append(rowItem(row, nowMs, hooks));
  section.append(heading, rows.length === 0 ? el("p", "empty", spec.empty) : list);
  return section;
}

function sinceElement(summary: SinceSummary | null, nowMs: number): HTMLElement {
  const section = el("section", "group since");
  section.setAttribute("aria-labelledby", "since-heading");
  const heading = el("h2", "", "Since you last looked");
  heading.id = "since-heading";
  section.append(heading);
  if (summary === null) {
    section.append(el("p", "empty", "Not known yet."));
    return section;
  }
  const counts = COUNT_WORDS.filter(([name]) => (summary.counts[name] ?? 0) > 0)
    .map(([name, word]) => `${summary.counts[name]} ${word}`)
    .join(" · ");
  section.append(
    el("p", "counts", `${shortAge(summary.since, nowMs) ?? "?"} ago: ${counts || "nothing changed"}`),
  );
  const list = el("ul", "rows compact");
  list.id = "since-list";
  for (const line of summary.lines.slice(0, 20)) {
    const item = el("li", "row");
    item.dataset.key = line.key;
    item.append(
      el("span", "title", line.title),
      el("span", "meta", ` ${line.machine} · ${line.what} · ${line.state}`),
    );
    list.append(item);
  }
  section.append(list);
  return section;
}

function statusLine(model: BoardModel, nowMs: number): HTMLElement {
  const parts = [`Updated ${shortAge(model.generatedAt, nowMs) ?? "?"}`];
  if (!model.complete) parts.push(`not answering: ${model.missing.join(", ") || "some machines"}`);
  const status = el("p", model.complete ? "status" : "status warn", parts.join(" · "));
  status.id = "status";
  return status;
}

/** Draws `model` into `root`, keeping keyboard focus on the same button when it still exists. */
export function render(root: HTMLElement, model: BoardModel, nowMs: number, hooks: RenderHooks): void {
  const focused =
    document.activeElement instanceof HTMLElement ? document.activeElement.dataset.focusKey : undefined;
  const parts: HTMLElement[] = [statusLine(model, nowMs)];
  for (const spec of SECTIONS) {
    parts.push(
      sectionElement(
        spec,
        model.rows.filter((row) => row.section === spec.section),
        nowMs,
        hooks,
      ),
    );
  }
  parts.push(sinceElement(model.sinceSummary, nowMs));
  root.replaceChildren(...parts);
  if (focused !== undefined) {
    for (const button of root.querySelectorAll<HTMLElement>("[data-focus-key]")) {
      if (button.dataset.focusKey === focused) button.focus();
    }
  }
}
