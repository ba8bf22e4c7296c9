/**
 * @module A thread's diff inside the inbox page (ADR 0068, "The person's diff page"): an item's
 * "What it changed" asks the gate for that thread's diff by environment and thread id (from afar
 * only inside the passkey view session) and shows the file list, then each file's patch with old
 * and new line numbers; "Load more files" appends the next page by its cursor, and a switch reads
 * the latest run's changes or the whole thread's. Colours come from variables with a dark-scheme set; a patch scrolls
 * sideways inside its own block, never the page. Text only (never HTML), like the rest of the
 * page; the script uses the inbox script's `post`, `el` and `viewToken`.
 */

export const DIFF_VIEW_CSS = `:root{--add-bg:#e3f6e6;--add-fg:#0f4d22;--del-bg:#fbe4e4;--del-fg:#7a1418;--hunk-bg:#e6eefb;--hunk-fg:#1d3f73}
@media (prefers-color-scheme:dark){:root{--add-bg:#173822;--add-fg:#b4f0c5;--del-bg:#421a1d;--del-fg:#ffc2c5;--hunk-bg:#1a2b45;--hunk-fg:#bcd4ff}}
.diff{margin-top:.5rem;min-width:0}
.diff-files{list-style:none;padding:0;margin:.4rem 0}
.diff-files li{display:flex;gap:.5rem;align-items:baseline;margin:.15rem 0;font-size:.95rem}
.diff-files .path,.diff-file h5{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere;min-width:0}
.plus{color:var(--ok)}.minus{color:var(--danger)}
.diff-file{border:1px solid var(--line);border-radius:8px;margin:.6rem 0;min-width:0;max-width:100%}
.diff-file h5{margin:0;padding:.4rem .6rem;font-size:.9rem;border-bottom:1px solid var(--line)}
.patch{overflow-x:auto;max-width:100%;font:.85rem/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.patch-lines{display:inline-block;min-width:100%}
.dl{display:flex;white-space:pre;overflow-wrap:normal}
.dl .no{flex:none;width:3.2em;padding:0 .35em;text-align:right;color:var(--muted);user-select:none}
.dl .tx{flex:1 0 auto;padding:0 .5em}
.dl.add{background:var(--add-bg);color:var(--add-fg)}
.dl.del{background:var(--del-bg);color:var(--del-fg)}
.dl.hunk{background:var(--hunk-bg);color:var(--hunk-fg)}
.dl.meta{color:var(--muted)}
.diff-scope{display:flex;gap:.5rem;flex-wrap:wrap;margin:.4rem 0}
.diff-scope button[aria-pressed=true]{font-weight:600}
`;

export const DIFF_VIEW_JS = `
const HUNK = /^@@ -(\\d+)(?:,\\d+)? \\+(\\d+)(?:,\\d+)? @@/;
function patchLines(patch) {
  const box = el("div", null, { class: "patch-lines" });
  let oldNo = null;
  let newNo = null;
  for (const line of patch.replace(/\\n$/, "").split("\\n")) {
    const hunk = HUNK.exec(line);
    let kind = "meta";
    let left = "";
    let right = "";
    if (hunk) { oldNo = Number(hunk[1]); newNo = Number(hunk[2]); kind = "hunk"; }
    else if (oldNo !== null && line.startsWith("+")) { kind = "add"; right = String(newNo++); }
    else if (oldNo !== null && line.startsWith("-")) { kind = "del"; left = String(oldNo++); }
    else if (oldNo !== null && line.startsWith(" ")) { kind = "ctx"; left = String(oldNo++); right = String(newNo++); }
    const row = el("div", null, { class: "dl " + kind, testid: "diff-line" });
    row.dataset.kind = kind;
    row.append(el("span", left, { class: "no" }), el("span", right, { class: "no" }), el("span", line, { class: "tx" }));
    box.append(row);
  }
  return box;
}
function fileRow(file) {
  const li = el("li");
  li.append(el("span", file.status, { class: "muted" }), el("span", file.path, { class: "path" }),
    el("span", "+" + file.additions, { class: "plus" }), el("span", "−" + file.deletions, { class: "minus" }));
  return li;
}
function fileBox(file) {
  const box = el("section", null, { class: "diff-file", testid: "diff-file" });
  box.append(el("h5", file.previousPath ? file.previousPath + " → " + file.path : file.path));
  const patch = el("div", null, { class: "patch", testid: "patch", tabindex: "0", "aria-label": "Patch of " + file.path });
  if (file.binary) patch.append(el("p", "Binary file: no text to show.", { class: "muted" }));
  else patch.append(patchLines(file.patch));
  box.append(patch);
  if (file.truncated) box.append(el("p", "This file's patch was cut.", { class: "muted" }));
  return box;
}
// One diff on screen: its scope switch, totals, file list and patches; "Load more files" asks for
// the next page by its cursor and appends it, so the list and the patches grow in place.
function renderDiff(diff, target, load) {
  target.replaceChildren();
  const switcher = el("div", null, { class: "diff-scope", role: "group", "aria-label": "Which changes" });
  for (const [scope, words] of [["run", "Latest run"], ["thread", "Whole thread"]]) {
    const pick = el("button", words, { type: "button", testid: "scope-" + scope, "aria-pressed": String(diff.scope === scope) });
    pick.disabled = diff.scope === scope;
    pick.addEventListener("click", () => load({ scope }));
    switcher.append(pick);
  }
  target.append(switcher);
  const t = diff.totals;
  target.append(el("p", t.files + " files changed, +" + t.additions + " −" + t.deletions +
    (diff.scope === "thread" ? " (whole thread)" : diff.runId ? " (latest run)" : ""), { testid: "diff-totals" }));
  if (diff.note) target.append(el("p", diff.note, { class: "muted" }));
  const list = el("ul", null, { class: "diff-files", testid: "diff-files" });
  const patches = el("div");
  const shown = el("p", "", { class: "muted", testid: "diff-shown" });
  const more = el("button", "Load more files", { type: "button", testid: "more-files" });
  target.append(list, patches, shown, more);
  let count = 0;
  let cursor = null;
  const append = (page) => {
    for (const file of page.files) { list.append(fileRow(file)); patches.append(fileBox(file)); }
    count += page.files.length;
    cursor = page.nextCursor || null;
    shown.textContent = cursor ? count + " of " + t.files + " files shown." : "";
    more.hidden = cursor === null;
  };
  more.addEventListener("click", async () => {
    more.disabled = true;
    try {
      append(await load({ scope: diff.scope, cursor }, true));
    } catch (error) {
      shown.textContent = "The next files did not load: " + error.message;
    } finally {
      more.disabled = false;
    }
  });
  append(diff);
}
async function showDiff(item, button, target, ask = {}) {
  button.disabled = true;
  target.hidden = false;
  if (!ask.cursor) target.replaceChildren(el("p", "Reading the diff…", { class: "muted" }));
  const read = (next) => post("/inbox/api/diff", { environmentId: item.environment.environmentId,
    threadId: item.thread.id, ...next, ...(viewToken ? { viewToken } : {}) });
  // A switch of scope reads its first page again; "Load more" reads the next page only.
  const load = (next, paging) => paging ? read(next) : showDiff(item, button, target, next);
  try {
    renderDiff(await read(ask), target, load);
  } catch (error) {
    target.replaceChildren(el("p", "The diff did not load: " + error.message, { class: "warn", testid: "diff-error" }));
  } finally {
    button.disabled = false;
  }
}
function diffButton(item, box) {
  const button = el("button", "What it changed", { type: "button", testid: "show-diff" });
  const target = el("div", null, { class: "diff", testid: "diff" });
  target.hidden = true;
  button.addEventListener("click", () => showDiff(item, button, target));
  box.append(button, target);
}
`;
