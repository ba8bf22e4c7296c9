// The open lease (what it covers, its writes, updating live) and the last closed leases.

import { byId, clockTime, element, minutesSeconds } from "./dom.js";

let lease = null;
let leaseSeenAt = 0;

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

function scopeSummary(scope, catalogue) {
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

/** Renders state.lease and state.leaseHistory. */
export function showLease(state, catalogue) {
  lease = state.lease?.active ? state.lease : null;
  leaseSeenAt = Date.now();
  const section = byId("lease");
  section.hidden = lease === null;
  if (lease !== null) {
    byId("lease-fingerprint").textContent = lease.scopeFingerprint;
    const holder = lease.client;
    byId("lease-holder").textContent =
      holder === undefined
        ? "Held by the client that asked for it (it did not name itself); only that client can use it."
        : `Held by the client that says it is ${holder.version ? `${holder.name} ${holder.version}` : holder.name} (not verified); only that client can use it.`;
    byId("lease-scope").replaceChildren(scopeSummary(lease.scope, catalogue));
    const writes = lease.writes ?? [];
    byId("writes").replaceChildren(...writes.map(writeRow));
    byId("no-writes").hidden = writes.length > 0;
    byId("writes-table").hidden = writes.length === 0;
  }
  tickLease();

  const history = state.leaseHistory ?? [];
  byId("history").hidden = history.length === 0;
  byId("history-list").replaceChildren(
    ...history.map((closed, index) => {
      const item = element("details", undefined, { "data-testid": "history-lease" });
      if (index === 0) item.open = true;
      const reason = closed.closeReason;
      item.append(
        element(
          "summary",
          `${clockTime(closed.grantedAt)} – ${clockTime(closed.closedAt)}, ${reason}, ${closed.writes.length} write(s)`,
        ),
        element("p", `Fingerprint ${closed.scopeFingerprint}`, { class: "fingerprint" }),
        writesTable(closed.writes, "history-writes"),
      );
      return item;
    }),
  );
}

/** Updates the lease countdown; answers false once the lease has run out. */
export function tickLease() {
  if (lease === null) return true;
  const left = Math.max(0, lease.remainingMs - (Date.now() - leaseSeenAt));
  byId("countdown").textContent = minutesSeconds(left);
  return left > 0;
}
