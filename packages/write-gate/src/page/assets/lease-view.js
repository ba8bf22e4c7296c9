// The open leases (each: who holds it, what it covers, its writes, updating live, its own End)
// and the last closed leases.

import { CHANGES_WORDS, changesLine } from "./changes-view.js";
import { byId, clientLabel, clockTime, element, minutesSeconds } from "./dom.js";

let leases = [];
let leasesSeenAt = 0;

/** One write as a row; takes the gate's WriteRow, or the older LeaseWrite shape. */
function writeRow(write) {
  const row = element("tr", undefined, { "data-operation": write.operationId });
  const outcome = write.outcome ?? write.state ?? "";
  const cells = [
    ["Time", clockTime(write.at)],
    ["Environment", write.environmentAlias ?? write.environmentId ?? ""],
    ["Thread", write.threadTitle ?? write.threadId ?? "—"],
    ["Action", write.actionLabel ?? write.action],
  ];
  for (const [label, value] of cells) row.append(element("td", value, { "data-label": label }));
  const last = element("td", undefined, { "data-label": "Outcome" });
  last.append(
    element("span", write.code ? `${outcome} (${write.code})` : outcome, {
      class: `outcome outcome-${outcome}`,
    }),
    element("code", ` ${write.operationId}`, { class: "operation" }),
  );
  row.append(last);
  return row;
}

function writesTable(writes, testId) {
  const table = element("table", undefined, { class: "writes" });
  const head = element("tr");
  for (const name of ["Time", "Environment", "Thread", "Action", "Outcome"]) {
    head.append(element("th", name, { scope: "col" }));
  }
  const thead = element("thead");
  thead.append(head);
  const body = element("tbody", undefined, { "data-testid": testId });
  for (const write of writes) body.append(writeRow(write));
  table.append(thead, body);
  return table;
}

const GROUP_NAMES = [
  ["organize", "Organize"],
  ["run", "Run control"],
  ["destructive", "⚠ Destructive"],
  ["other", "Other"],
];

function scopeSummary(scope, catalogue, limited = []) {
  const box = element("div", undefined, { class: "scope-summary" });
  if (typeof scope.runtimeMode === "string") {
    box.append(
      element("p", `Runtime ceiling: ${scope.runtimeMode} (agents it starts run at most in this mode)`, {
        class: "ceiling-line",
        "data-testid": "lease-ceiling",
      }),
    );
  }
  for (const grant of scope.environments) {
    const part = element("div", undefined, { "data-environment": grant.environmentId });
    part.append(element("h4", `${grant.alias} — ${grant.label}`));
    part.append(element("p", `Projects: ${grant.projects.map((project) => project.name).join(", ")}`));
    if (Array.isArray(grant.threadIds)) {
      // A lease limited to the threads the client named (ADR 0041): said by title where known.
      const named = limited
        .filter((thread) => thread.environmentId === grant.environmentId)
        .map((thread) => (thread.title === undefined ? thread.threadId : `“${thread.title}”`));
      part.append(
        element(
          "p",
          named.length === 0
            ? "Threads: none that exist now (only threads it starts itself)"
            : `Threads: only ${named.join(", ")} (and threads it starts itself)`,
          { "data-testid": `lease-threads-${grant.alias}` },
        ),
      );
    }
    for (const [group, name] of GROUP_NAMES) {
      const actions = grant.actions.filter((action) => (catalogue.get(action)?.group ?? "other") === group);
      if (actions.length === 0) continue;
      const labels = actions.map((action) => catalogue.get(action)?.label ?? action);
      part.append(
        element("p", `${name} (${actions.length}): ${labels.join(", ")}`, {
          class: group === "destructive" ? "granted-destructive" : "granted",
          "data-testid": `granted-${grant.alias}-${group}`,
        }),
      );
    }
    box.append(part);
  }
  return box;
}

function holderWords(holder) {
  if (holder === undefined) {
    return "Held by the client that asked for it (it did not name itself); only that client can use it.";
  }
  if (holder.signedInAt) {
    return `Held by the session ${clientLabel(holder)}; only that session can use it, and signing it out ends this lease.`;
  }
  return `Held by the client that says it is ${clientLabel(holder)} (not verified); only that client can use it.`;
}

/** The threads the lease names or wrote to, each with its change summary (ADR 0068). */
function threadChanges(threads) {
  const list = element("ul", undefined, { class: "thread-changes", "data-testid": "lease-thread-changes" });
  for (const thread of threads) {
    const item = element("li");
    const name = thread.title === undefined ? thread.threadId : `“${thread.title}”`;
    item.append(
      `${name} in ${thread.alias} — `,
      changesLine(thread.environmentId, thread.threadId, `lease-changes-${thread.alias}-${thread.threadId}`),
    );
    list.append(item);
  }
  return [element("h4", "What its threads changed"), element("p", CHANGES_WORDS, { class: "hint" }), list];
}

/** One open lease: who holds it, time left, its fingerprint, an End button, its scope and writes. */
function leaseCard(open, catalogue, onEnd) {
  const card = element("article", undefined, {
    class: "open-lease",
    "data-testid": "open-lease",
    "data-lease-id": open.leaseId,
  });
  const end = element("button", "End this lease", { type: "button", "data-testid": "end-lease" });
  end.addEventListener("click", () => {
    end.disabled = true;
    onEnd(open.leaseId).finally(() => {
      end.disabled = false;
    });
  });
  const timing = element("p");
  timing.append(
    "Expires in ",
    element("strong", "", { class: "countdown", "data-testid": "countdown" }),
    " · fingerprint ",
    element("code", open.scopeFingerprint, { "data-testid": "lease-fingerprint" }),
  );
  const writes = open.writes ?? [];
  card.append(
    element("h3", holderWords(open.client), { "data-testid": "lease-holder" }),
    timing,
    end,
    scopeSummary(open.scope, catalogue, open.limitedThreads ?? []),
  );
  const threads = open.threads ?? [];
  if (threads.length > 0) card.append(...threadChanges(threads));
  card.append(element("h4", "Writes under this lease"));
  if (writes.length === 0) card.append(element("p", "No writes yet.", { class: "hint no-writes" }));
  else {
    const table = writesTable(writes, "writes");
    table.setAttribute("data-testid", "writes-table");
    card.append(table);
  }
  return card;
}

/** Renders state.leases (every open lease, each with its own End) and state.leaseHistory. */
export function showLease(state, catalogue, onEnd) {
  leases = state.leases ?? [];
  leasesSeenAt = Date.now();
  byId("lease").hidden = leases.length === 0;
  byId("lease-list").replaceChildren(...leases.map((open) => leaseCard(open, catalogue, onEnd)));
  tickLease();

  const history = state.leaseHistory ?? [];
  byId("history").hidden = history.length === 0;
  byId("history-list").replaceChildren(
    ...history.map((closed, index) => {
      const item = element("details", undefined, { "data-testid": "history-lease" });
      if (index === 0) item.open = true;
      const reason = closed.closeReason;
      const holder = closed.client === undefined ? "" : `${closed.client.name}, `;
      item.append(
        element(
          "summary",
          `${holder}${clockTime(closed.grantedAt)} – ${clockTime(closed.closedAt)}, ${reason}, ${closed.writes.length} write(s)`,
        ),
        element("p", `Fingerprint ${closed.scopeFingerprint}`, { class: "fingerprint" }),
        writesTable(closed.writes, "history-writes"),
      );
      return item;
    }),
  );
}

/** Updates every lease's countdown; answers false once one of them has run out. */
export function tickLease() {
  let allLive = true;
  const elapsed = Date.now() - leasesSeenAt;
  for (const open of leases) {
    const left = Math.max(0, open.remainingMs - elapsed);
    const card = document.querySelector(`[data-lease-id="${CSS.escape(open.leaseId)}"] .countdown`);
    if (card !== null) card.textContent = minutesSeconds(left);
    if (left <= 0) allLive = false;
  }
  return allLive;
}
