/**
 * @module The person's inbox page (ADR 0073), the same on the gate's localhost and from afar:
 * everything that waits on the person, grouped by machine and project, oldest first; a choice per
 * item; the set of choices shown in full above the one primary button; one passkey ceremony for
 * the whole set; each item's outcome after. Strings here so the bundled CLI carries them; the
 * page sets text only (never HTML), and its CSP allows its own script and stylesheet alone.
 */
import { DECISION_PAGE_CSS, PAGE_BYTES_SCRIPT } from "@t3-connector/core/passkeys";
import { DIFF_VIEW_CSS, DIFF_VIEW_JS } from "./inbox-diff-view.js";

export const INBOX_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>T3 Connector - inbox</title>
<link rel="stylesheet" href="/inbox/page.css">
<script src="/inbox/page.js" type="module"></script>
</head>
<body>
<main>
<h1>Waiting on you</h1>
<p id="message" role="status" aria-live="polite" data-testid="message"></p>
<section id="locked" hidden>
<p>What waits here shows only after your passkey.</p>
<button type="button" id="unlock" class="primary" data-testid="unlock">Show with passkey</button>
</section>
<p id="unavailable" class="warn" data-testid="unavailable" hidden></p>
<div id="groups" data-testid="items"></div>
<section id="review" hidden>
<h2>Your decisions</h2>
<ul id="set" data-testid="set"></ul>
<p id="full-access" class="warn" data-testid="full-access-warning" hidden></p>
<button type="button" id="decide" class="primary" data-testid="decide">Decide with passkey</button>
</section>
<section id="results" hidden>
<h2>What happened</h2>
<ul id="outcomes" data-testid="outcomes"></ul>
</section>
</main>
</body>
</html>
`;

export const INBOX_PAGE_CSS = `${DECISION_PAGE_CSS}
${DIFF_VIEW_CSS}.item{border:1px solid var(--line);border-radius:10px;padding:.75rem;margin:.75rem 0;min-width:0}
.item:target{outline:3px solid var(--accent)}
.item h4{margin:0 0 .25rem;font-size:1.05rem}
.facts{margin:.1rem 0;font-size:.95rem}
.choices{display:flex;flex-wrap:wrap;gap:.25rem .75rem;margin-top:.5rem}
.choices label{margin:0}
.kind{display:inline-block;font-size:.8rem;font-weight:600;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
#message:empty{display:none}#message{background:var(--code-bg);padding:.5rem .75rem;border-radius:6px}
#set li,#outcomes li{margin:.3rem 0}
.sent{color:var(--ok)}.not-sent{color:var(--danger)}
`;

export const INBOX_PAGE_JS = `const $ = (id) => document.getElementById(id);
const say = (text) => { $("message").textContent = text; };
${PAGE_BYTES_SCRIPT}
let viewToken = null;
let items = [];
const choices = new Map();
async function post(path, payload) {
  const response = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify(payload), credentials: "omit" });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) { const error = new Error(answer.error || "refused"); error.code = answer.error; throw error; }
  return answer;
}
async function assertion(options) {
  const credential = await navigator.credentials.get({ publicKey: { ...options, challenge: toBytes(options.challenge),
    allowCredentials: (options.allowCredentials || []).map((c) => ({ ...c, id: toBytes(c.id) })) } });
  const r = credential.response;
  return { id: credential.id, rawId: toText(credential.rawId), type: credential.type,
    clientExtensionResults: credential.getClientExtensionResults(),
    response: { clientDataJSON: toText(r.clientDataJSON), authenticatorData: toText(r.authenticatorData),
      signature: toText(r.signature), userHandle: r.userHandle ? toText(r.userHandle) : undefined } };
}
const el = (tag, text, attrs) => {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "testid") node.dataset.testid = value; else if (key === "class") node.className = value; else node.setAttribute(key, value);
  }
  return node;
};
${DIFF_VIEW_JS}
const waited = (ms) => {
  if (ms === null || ms === undefined) return "waiting";
  const minutes = Math.floor(ms / 60000);
  if (minutes < 1) return "waiting under a minute";
  if (minutes < 60) return "waiting " + minutes + " min";
  return "waiting " + Math.floor(minutes / 60) + " h " + (minutes % 60) + " min";
};
const DECISION_WORDS = { accept: "Approve once", acceptForSession: "Approve for the session", decline: "Decline" };
const KIND_WORDS = { approval: "approval", question: "question", secret: "secret", lease: "client's lease request" };
function describe(item, choice) {
  const title = item.thread ? (item.thread.title || item.thread.id) : "a client";
  if (choice.decision === "answer") {
    const parts = Object.values(choice.answers).map((v) => Array.isArray(v) ? v.join(", ") : v);
    return "Answer “" + parts.join("; ") + "” to " + title + " (" + item.environment.machine + ")";
  }
  return DECISION_WORDS[choice.decision] + ": " + title + " (" + item.environment.machine + ")";
}
function renderSet() {
  const set = $("set");
  set.replaceChildren();
  const chosen = items.filter((item) => choices.has(item.itemId));
  for (const item of chosen) set.append(el("li", describe(item, choices.get(item.itemId)), { testid: "set-item" }));
  $("review").hidden = chosen.length === 0;
  const full = chosen.filter((item) => item.fullAccess && choices.get(item.itemId).decision !== "decline");
  $("full-access").hidden = full.length === 0;
  $("full-access").textContent = full.length === 0 ? "" :
    "Full access: " + full.map((item) => item.thread.title || item.thread.id).join(", ") +
    " runs with no sandbox and no approvals. Approving lets it carry on that way.";
  $("decide").textContent = chosen.length <= 1 ? "Decide with passkey" : "Decide these " + chosen.length + " with passkey";
}
function decisionOf(item) {
  const choice = choices.get(item.itemId);
  return { environmentId: item.environment.environmentId, threadId: item.thread.id,
    requestId: item.request.requestId, decision: choice.decision, answers: choice.answers || null };
}
function approvalChoices(item, box) {
  const row = el("div", null, { class: "choices", role: "radiogroup" });
  for (const decision of ["leave", ...item.request.decisions]) {
    const input = el("input", null, { type: "radio", name: "d-" + item.itemId, value: decision, testid: "choice-" + decision });
    if (decision === "leave") input.checked = true;
    input.addEventListener("change", () => {
      if (decision === "leave") choices.delete(item.itemId); else choices.set(item.itemId, { decision });
      renderSet();
    });
    const label = el("label");
    label.append(input, document.createTextNode(decision === "leave" ? "Not now" : DECISION_WORDS[decision]));
    row.append(label);
  }
  box.append(row);
}
function questionChoices(item, box) {
  const answers = {};
  const update = () => {
    const filled = Object.fromEntries(Object.entries(answers).filter(([, v]) => v !== ""));
    if (Object.keys(filled).length === 0) choices.delete(item.itemId);
    else choices.set(item.itemId, { decision: "answer", answers: filled });
    renderSet();
  };
  for (const question of item.request.content.questions) {
    box.append(el("p", question.header + ": " + question.question, { testid: "question" }));
    const row = el("div", null, { class: "choices" });
    for (const option of question.options) {
      const input = el("input", null, { type: "radio", name: "q-" + item.itemId + "-" + question.id, value: option.label, testid: "option" });
      input.addEventListener("change", () => { answers[question.id] = option.label; update(); });
      const label = el("label", null, { title: option.description });
      label.append(input, document.createTextNode(option.label));
      row.append(label);
    }
    box.append(row);
    if (question.allowCustomAnswer || question.options.length === 0) {
      const input = el("input", null, { type: "text", maxlength: "4000", testid: "answer-text", "aria-label": "Your answer" });
      input.addEventListener("input", () => { answers[question.id] = input.value.trim(); update(); });
      box.append(input);
    }
  }
}
function renderItem(item) {
  const box = el("article", null, { class: "item", id: item.itemId, testid: "item" });
  box.dataset.kind = item.kind;
  box.append(el("span", KIND_WORDS[item.kind], { class: "kind" }));
  box.append(el("h4", item.thread ? (item.thread.title || item.thread.id) : (item.request.client || "A client"), { testid: "item-title" }));
  const facts = [item.provider, item.model, item.runtimeMode].filter(Boolean).join(" · ");
  if (facts) box.append(el("p", facts, { class: "facts muted" }));
  box.append(el("p", waited(item.waitedMs), { class: "facts muted", testid: "waited" }));
  if (item.fullAccess) box.append(el("p", "Runs in full access: no sandbox, no approvals.", { class: "warn" }));
  const request = item.request;
  if (request.type === "runtime") {
    if (item.directory) box.append(el("p", "Folder: " + item.directory, { class: "facts mono" }));
    if (request.content && request.content.type === "approval") box.append(el("pre", request.content.prompt, { testid: "command" }));
    if (request.detail) box.append(el("p", "The agent says: " + request.detail, { testid: "reason" }));
    if (!request.answerable) box.append(el("p", "Answer this one in T3: it cannot take an answer from here now.", { class: "warn" }));
    else if (item.kind === "approval") approvalChoices(item, box);
    else if (request.content && request.content.type === "user_input") questionChoices(item, box);
  } else if (request.type === "secret") {
    box.append(el("p", "Asks for a secret" + (request.name ? " (" + request.name + ")" : "") + ". Answer it in T3: a secret is never typed here.", { class: "warn", testid: "secret" }));
  } else {
    if (request.purpose) box.append(el("p", "In its words: " + request.purpose));
    const link = el("a", "Open its approval page", { href: request.approvalUrl, testid: "lease-link" });
    box.append(link);
  }
  if (item.lastMessage) {
    const last = el("details");
    last.append(el("summary", "Last message"), el("pre", item.lastMessage));
    box.append(last);
  }
  if (item.changeSummary) box.append(el("pre", item.changeSummary, { testid: "changes" }));
  if (item.thread) diffButton(item, box);
  return box;
}
function render(listing) {
  items = listing.items;
  for (const id of [...choices.keys()]) if (!items.some((item) => item.itemId === id)) choices.delete(id);
  const groups = $("groups");
  groups.replaceChildren();
  const byGroup = new Map();
  for (const item of items) {
    const key = item.environment.machine + "\\u0000" + (item.project.title || item.project.id || "");
    if (!byGroup.has(key)) byGroup.set(key, []);
    byGroup.get(key).push(item);
  }
  for (const [key, members] of byGroup) {
    const [machine, project] = key.split("\\u0000");
    const section = el("section", null, { testid: "group" });
    section.append(el("h2", project ? machine + " — " + project : machine));
    for (const item of members) section.append(renderItem(item));
    groups.append(section);
  }
  if (items.length === 0) say("Nothing waits on you.");
  const missing = listing.unavailable || [];
  $("unavailable").hidden = missing.length === 0;
  $("unavailable").textContent = missing.length === 0 ? "" : "Not read just now: " + missing.map((m) => m.alias).join(", ") + ". What waits there is not shown.";
  renderSet();
  if (location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
}
async function load() {
  try {
    render(await post("/inbox/api/items", viewToken ? { viewToken } : {}));
    $("locked").hidden = true;
  } catch (error) {
    if (error.code === "unlock_required") { $("locked").hidden = false; return; }
    say("The inbox did not load: " + error.message);
  }
}
$("unlock").addEventListener("click", async () => {
  try {
    const started = await post("/inbox/api/unlock/options", {});
    const opened = await post("/inbox/api/unlock", { ticketId: started.ticketId, response: await assertion(started.options) });
    viewToken = opened.viewToken;
    await load();
  } catch (error) {
    say("Not shown: " + error.message);
  }
});
const RESULT_WORDS = { sent: "sent", already_sent: "already sent from here; nothing sent again",
  already_answered: "already answered elsewhere; nothing sent", gone: "no longer there; nothing sent",
  refused: "refused; not sent", uncertain: "may have reached T3; it will be checked, never sent twice" };
$("decide").addEventListener("click", async () => {
  const decisions = items.filter((item) => choices.has(item.itemId)).map(decisionOf);
  if (decisions.length === 0) return;
  $("decide").disabled = true;
  try {
    const started = await post("/inbox/api/options", { decisions, ...(viewToken ? { viewToken } : {}) });
    const done = await post("/inbox/api/decide", { ticketId: started.ticketId, decisions, response: await assertion(started.options) });
    const list = $("outcomes");
    list.replaceChildren();
    for (const outcome of done.outcomes) {
      const item = items.find((i) => i.itemId === outcome.itemId);
      const words = (item && item.thread ? item.thread.title || item.thread.id : outcome.requestId) + ": " +
        RESULT_WORDS[outcome.result] + (outcome.code ? " (" + outcome.code + ")" : "");
      const li = el("li", words, { testid: "outcome", class: outcome.result === "sent" ? "sent" : "not-sent" });
      li.dataset.result = outcome.result;
      li.dataset.itemId = outcome.itemId;
      list.append(li);
    }
    $("results").hidden = false;
    choices.clear();
    say("Decided.");
    await load();
  } catch (error) {
    say("Nothing was decided: " + error.message);
  } finally {
    $("decide").disabled = false;
  }
});
load().finally(() => { document.body.dataset.ready = "true"; });
`;
