/**
 * @module The approval page from afar (ADR 0050), made for a phone: one request, what approving
 * it grants in words, and Approve / Deny, each with the passkey; the open leases (with a request,
 * after an approval, or shown with the passkey on the plain page), each ended with the passkey; and adding this device's passkey with a code from `t3-connector oauth enroll`.
 * Strings here so the bundled CLI carries them; the page sets text only (never HTML) and its CSP
 * allows its own script alone.
 */
import { DECISION_PAGE_CSS, PAGE_BYTES_SCRIPT } from "@t3-connector/core/passkeys";

export const REMOTE_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>T3 Connector - approve</title>
<link rel="stylesheet" href="/approve/page.css">
<script src="/approve/page.js" type="module"></script>
</head>
<body>
<main>
<h1>Approve writes to T3</h1>
<p id="message" role="status" aria-live="polite" data-testid="message"></p>
<section id="request" hidden>
<h2 data-testid="request-client"></h2>
<p data-testid="purpose"></p>
<h3>Approving grants exactly this</h3>
<ul id="grants" data-testid="grants"></ul>
<div id="named" hidden>
<h3>Threads it names</h3>
<p data-testid="changes-words">Beside each: how many files and lines its latest finished run changed, as T3 recorded them. Which files, and the diff itself, show only in the inbox after a passkey sign-in.</p>
<ul id="named-threads" data-testid="named-threads"></ul>
</div>
<p>Runtime ceiling: <span data-testid="ceiling"></span></p>
<p>Fingerprint <code data-testid="fingerprint"></code>; expires <span data-testid="expires"></span></p>
<button type="button" id="approve" class="primary" data-testid="approve">Approve with passkey</button>
<button type="button" id="deny" data-testid="deny">Deny with passkey</button>
</section>
<section>
<h2>Open leases</h2>
<button type="button" id="show-leases" data-testid="show-leases">Show open leases with passkey</button>
<ul id="leases" data-testid="leases"></ul>
</section>
<section>
<h2>A passkey on this device</h2>
<p>No passkey here yet? Run <code>t3-connector oauth enroll</code> on the machine that serves this page and enter its code.</p>
<label for="passkey-name">Name of this device</label>
<input id="passkey-name" data-testid="passkey-name" maxlength="64" value="Phone">
<label for="enroll-code">Enrollment code</label>
<input id="enroll-code" data-testid="enroll-code" autocomplete="one-time-code" spellcheck="false">
<button type="button" id="enroll" data-testid="enroll-submit">Add passkey</button>
</section>
<section>
<h2>Add another device</h2>
<p>On a device that already has a passkey: get a code for the new one, approved with this passkey.</p>
<button type="button" id="device-code" data-testid="device-code">Get a code with passkey</button>
<p>Code: <code data-testid="device-code-value"></code></p>
</section>
</main>
</body>
</html>
`;

/** Core's one stylesheet of the decision pages (ADR 0073), then what only this page adds. */
export const REMOTE_PAGE_CSS = `${DECISION_PAGE_CSS}
li{margin:.25rem 0;overflow-wrap:anywhere}
.changes{color:var(--muted)}.changes[data-state=unknown]{font-style:italic}
#message:empty{display:none}#message{background:var(--code-bg);padding:.5rem .75rem;border-radius:6px}
`;

export const REMOTE_PAGE_JS = `const requestId = new URLSearchParams(location.search).get("request");
const $ = (id) => document.getElementById(id);
const say = (text) => { $("message").textContent = text; };
${PAGE_BYTES_SCRIPT}
// The gate answers a refusal with its typed code only: these are the words a person acts on.
const WORDS = {
  assertion_invalid: "that passkey did not verify here. Try again with a passkey added for this address (t3-connector oauth enroll gives a code to add one).",
  credential_unknown: "that passkey is not one of this server's. Add this device's passkey below, with a code from t3-connector oauth enroll.",
  challenge_invalid: "the passkey prompt expired. Press the button again.",
  challenge_already_issued: "this request already had its one passkey attempt. Ask the client to request approval again.",
  enrollment_required: "no passkey is added on this server yet. Add one below, with a code from t3-connector oauth enroll.",
  request_used: "this request was already decided. Show the open leases to end one.",
  request_expired: "this request expired. Ask the client to request approval again.",
  request_denied: "this request was denied.",
  request_superseded: "the client asked again; open the newer link.",
  request_withdrawn: "the session that asked ended, so its request was withdrawn.",
  request_invalid: "the gate does not know this request (it restarted, or the link is wrong). Ask the client again.",
  too_many_requests: "too many attempts from here. Wait a minute and try again.",
};
async function post(path, payload) {
  const response = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify(payload), credentials: "omit" });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(WORDS[answer.error] || answer.error_description || answer.error || "refused");
  return answer;
}
// The browser's own WebAuthn failures, in words a person acts on (its messages point at a spec).
const WEBAUTHN_WORDS = {
  NotAllowedError: "the passkey prompt was closed or timed out, or this device holds no passkey of this server. Press the button again; none here? Add one below with a code from t3-connector oauth enroll.",
  AbortError: "the passkey prompt was stopped before it finished. Press the button again.",
  SecurityError: "the browser refused a passkey for this address. Open the link exactly as it was sent.",
};
async function assertion(options) {
  const credential = await navigator.credentials.get({ publicKey: { ...options, challenge: toBytes(options.challenge),
    allowCredentials: (options.allowCredentials || []).map((c) => ({ ...c, id: toBytes(c.id) })) } })
    .catch((error) => { throw new Error(WEBAUTHN_WORDS[error.name] || error.message); });
  const r = credential.response;
  return { id: credential.id, rawId: toText(credential.rawId), type: credential.type,
    clientExtensionResults: credential.getClientExtensionResults(),
    response: { clientDataJSON: toText(r.clientDataJSON), authenticatorData: toText(r.authenticatorData),
      signature: toText(r.signature), userHandle: r.userHandle ? toText(r.userHandle) : undefined } };
}
const clientLabel = (client) => {
  if (!client) return "A client that did not name itself";
  if (client.signedInAt) {
    const time = new Date(client.signedInAt).toLocaleTimeString([], { hour: "numeric", minute: "2-digit" });
    return client.name + ", signed in " + time;
  }
  return client.version ? client.name + " " + client.version + " (its own word)" : client.name + " (its own word)";
};
const item = (text, testId) => {
  const li = document.createElement("li");
  li.textContent = text;
  if (testId) li.dataset.testid = testId;
  return li;
};
function showRequest(view) {
  $("request").hidden = false;
  document.querySelector("[data-testid=request-client]").textContent = clientLabel(view.client) + " asks to write";
  document.querySelector("[data-testid=purpose]").textContent = view.purpose ? "In its words: " + view.purpose : "It gave no reason.";
  const labels = new Map(view.actionInfo.map((info) => [info.action, info.label]));
  const grants = $("grants");
  grants.replaceChildren();
  for (const chosen of view.preselected.environments) {
    const grant = view.scope.environments.find((e) => e.environmentId === chosen.environmentId);
    const projects = grant.projects.filter((p) => chosen.projectIds.includes(p.id)).map((p) => p.name || p.id);
    const actions = chosen.actions.map((a) => labels.get(a) || a);
    grants.append(item(grant.alias + ": projects " + projects.join(", ") + "; actions " + actions.join(", "), "grant"));
  }
  showNamedThreads(view);
  document.querySelector("[data-testid=ceiling]").textContent = view.scope.runtimeMode;
  document.querySelector("[data-testid=fingerprint]").textContent = view.scopeFingerprint;
  document.querySelector("[data-testid=expires]").textContent = new Date(view.expiresAt).toLocaleTimeString();
}
// A thread's change line: counts only, filled from the gate once the request is on screen.
function changesLine(thread) {
  const line = document.createElement("span");
  line.className = "changes";
  line.textContent = thread.line || "changes: reading…";
  line.dataset.state = thread.state || "reading";
  line.dataset.testid = "changes";
  return line;
}
function showNamedThreads(view) {
  const named = view.namedThreads || [];
  $("named").hidden = named.length === 0;
  const list = $("named-threads");
  list.replaceChildren();
  const lines = named.map((thread) => {
    const li = item("\u201c" + thread.title + "\u201d in " + thread.alias + " \u2014 ", "named-thread");
    const line = changesLine({});
    li.append(line);
    list.append(li);
    return line;
  });
  if (named.length === 0) return;
  post("/approve/api/changes", { requestId }).then((answer) => answer.threads || [], () => []).then((rows) => {
    named.forEach((thread, index) => {
      const row = rows.find((r) => r.environmentId === thread.environmentId && r.threadId === thread.threadId);
      lines[index].textContent = row ? row.line : "changes unknown";
      lines[index].dataset.state = row ? row.state : "unknown";
    });
  });
}
function showLeases(leases) {
  const list = $("leases");
  list.replaceChildren();
  if (leases.length === 0) list.append(item("None."));
  for (const lease of leases) {
    const li = item(clientLabel(lease.client) + ", until " + new Date(lease.expiresAt).toLocaleTimeString() + "; fingerprint ");
    const fingerprint = document.createElement("code");
    fingerprint.textContent = lease.scopeFingerprint;
    fingerprint.dataset.testid = "lease-fingerprint";
    li.append(fingerprint, " ");
    li.dataset.leaseId = lease.leaseId;
    li.dataset.testid = "open-lease";
    if (lease.threads && lease.threads.length > 0) {
      // After the passkey only: the threads it names or wrote to, each with its change counts.
      const threads = document.createElement("ul");
      threads.dataset.testid = "lease-threads";
      for (const thread of lease.threads) {
        const name = thread.title === undefined ? "a thread" : "\u201c" + thread.title + "\u201d";
        const entry = item(name + " in " + thread.alias + " \u2014 ");
        entry.append(changesLine(thread));
        threads.append(entry);
      }
      li.append(threads);
    }
    const end = document.createElement("button");
    end.type = "button";
    end.textContent = "End with passkey";
    end.dataset.testid = "end-lease";
    end.addEventListener("click", () => stop({ decision: "end", leaseId: lease.leaseId }, "Lease ended."));
    li.append(end);
    list.append(li);
  }
}
async function refresh() {
  if (!requestId) return;
  try {
    const answer = await post("/approve/api/view", { requestId });
    showRequest(answer.request);
    showLeases(answer.leases);
  } catch (error) {
    $("request").hidden = true;
    say("This request cannot be decided: " + error.message);
  }
}
async function stop(ask, done) {
  try {
    const started = await post("/approve/api/options", ask);
    await post("/approve/api/stop", { ticketId: started.ticketId, response: await assertion(started.options) });
    say(done);
    if (ask.decision === "deny") $("request").hidden = true;
    if (ask.leaseId) document.querySelector('[data-lease-id="' + ask.leaseId + '"]')?.remove();
  } catch (error) {
    say("Not done: " + error.message);
  }
}
$("approve").addEventListener("click", async () => {
  try {
    const started = await post("/approve/api/options", { requestId, decision: "approve" });
    const granted = await post("/approve/api/approve", { requestId, response: await assertion(started.options) });
    $("request").hidden = true;
    showLeases(granted.leases || []);
    say("Lease granted.");
  } catch (error) {
    say("Not approved: " + error.message);
  }
});
$("deny").addEventListener("click", () => stop({ requestId, decision: "deny" }, "Request denied."));
$("show-leases").addEventListener("click", async () => {
  try {
    const started = await post("/approve/api/options", { decision: "leases" });
    const answer = await post("/approve/api/leases", { ticketId: started.ticketId, response: await assertion(started.options) });
    showLeases(answer.leases);
    say(answer.leases.length === 0 ? "No lease is open." : "Open leases listed; End stops one.");
  } catch (error) {
    say("Leases not shown: " + error.message);
  }
});
$("enroll").addEventListener("click", async () => {
  try {
    const code = $("enroll-code").value;
    const name = $("passkey-name").value;
    const started = await post("/oauth/passkeys/enroll/options", { code, name });
    const o = started.options;
    const credential = await navigator.credentials.create({ publicKey: { ...o, challenge: toBytes(o.challenge),
      user: { ...o.user, id: toBytes(o.user.id) },
      excludeCredentials: (o.excludeCredentials || []).map((c) => ({ ...c, id: toBytes(c.id) })) } });
    const r = credential.response;
    await post("/oauth/passkeys/enroll/verify", { registrationId: started.registrationId, response: {
      id: credential.id, rawId: toText(credential.rawId), type: credential.type,
      clientExtensionResults: credential.getClientExtensionResults(),
      response: { clientDataJSON: toText(r.clientDataJSON), attestationObject: toText(r.attestationObject),
        transports: r.getTransports ? r.getTransports() : [] } } });
    say("Passkey added on this device.");
  } catch (error) {
    say("Passkey not added: " + error.message);
  }
});
$("device-code").addEventListener("click", async () => {
  try {
    const started = await post("/oauth/passkeys/device-code/options", {});
    const issued = await post("/oauth/passkeys/device-code", { ticketId: started.ticketId,
      response: await assertion(started.options) });
    document.querySelector("[data-testid=device-code-value]").textContent = issued.code;
    say("Type this code on the new device within 10 minutes; it serves once.");
  } catch (error) {
    say("No code: " + error.message);
  }
});
refresh().catch((error) => say("The gate did not answer: " + error.message)).finally(() => {
  document.body.dataset.ready = "true";
});
`;
