// The change summary beside each thread a request or a lease names (ADR 0068): a placeholder
// first, filled from POST /api/changes once the page has shown what it decides on, so a slow or
// failing T3 never holds the page. Text only; a failed read says "changes unknown".

import { post } from "./api.js";
import { element } from "./dom.js";

/** The last line read per thread, so a re-render keeps it while the next read runs. */
const known = new Map();
const keyOf = (environmentId, threadId) => `${environmentId}\u0000${threadId}`;

/** The words that say what the lines are, once per list. */
export const CHANGES_WORDS =
  "Beside each thread: what its latest finished run changed (files, lines added and removed), as T3 recorded it.";

/** One thread's line, to be filled by `fillChanges`. */
export function changesLine(environmentId, threadId, testId) {
  const last = known.get(keyOf(environmentId, threadId));
  const node = element("span", last?.line ?? "changes: reading…", {
    class: "changes",
    "data-state": last?.state ?? "reading",
    "data-testid": testId,
  });
  node.dataset.environmentId = environmentId;
  node.dataset.threadId = threadId;
  return node;
}

/** Reads the summaries of the threads on screen and writes each line. */
export async function fillChanges(requestId) {
  if (document.querySelector(".changes[data-thread-id]") === null) return;
  let rows = [];
  try {
    rows = (await post("/api/changes", requestId ? { requestId } : {})).threads ?? [];
  } catch {
    rows = [];
  }
  for (const row of rows) known.set(keyOf(row.environmentId, row.threadId), row);
  for (const node of document.querySelectorAll(".changes[data-thread-id]")) {
    const row = known.get(keyOf(node.dataset.environmentId, node.dataset.threadId));
    const fresh = rows.includes(row);
    node.textContent = fresh ? row.line : "changes unknown";
    node.dataset.state = fresh ? row.state : "unknown";
  }
}
