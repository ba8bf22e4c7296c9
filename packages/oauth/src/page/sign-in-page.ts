/**
 * @module The sign-in and consent page, rendered on the server with every value escaped. Its
 * script and style are separate files (the CSP allows no inline code); both are strings here so
 * the bundled CLI carries them.
 */
/** The consent page's words for the write scope: what ticking it grants, and what it never does. */
import { DECISION_PAGE_CSS, PAGE_BYTES_SCRIPT } from "@t3-connector/core/passkeys";

export const WRITE_SCOPE_WORDS =
  "ask for leases to change threads; every change still needs your passkey on the approval page";

export interface ConsentFacts {
  readonly transactionId: string;
  readonly clientName: string;
  readonly clientKind: "dcr" | "cimd";
  readonly clientId: string;
  readonly redirectHost: string;
  readonly loopbackRedirect: boolean;
  readonly scopes: readonly string[];
  readonly resource: string;
  readonly sessionLength: string;
  readonly enrolled: boolean;
}

export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

export function signInPage(facts: ConsentFacts): string {
  const e = escapeHtml;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>T3 Connector - sign in</title>
<link rel="stylesheet" href="/oauth/page.css">
<script src="/oauth/page.js" type="module"></script>
</head>
<body data-transaction="${e(facts.transactionId)}" data-enrolled="${facts.enrolled}">
<main>
<h1>Sign in to T3 Connector</h1>
<section aria-labelledby="who">
<h2 id="who">${e(facts.clientName)} asks to read your T3 threads${facts.scopes.includes("t3:write") ? " and to ask for leases to change them" : ""}</h2>
<dl>
<dt>Client</dt><dd data-testid="consent-client">${e(facts.clientName)} <small>(${facts.clientKind === "cimd" ? e(facts.clientId) : "registered by the client itself"})</small></dd>
<dt>Sends you back to</dt><dd data-testid="consent-redirect-host">${e(facts.redirectHost)}</dd>
<dt>Access</dt><dd data-testid="consent-scopes">t3:read (every read tool)${facts.scopes.includes("t3:write") ? "" : "; no writes"}</dd>
${writeChoice(facts.scopes)}
<dt>Resource</dt><dd data-testid="consent-resource">${e(facts.resource)}</dd>
<dt>Session</dt><dd data-testid="consent-session">${e(facts.sessionLength)}</dd>
</dl>
${facts.loopbackRedirect ? '<p class="warn">The callback is on this computer (loopback): any program here could receive it. Approve only if you started this sign-in.</p>' : ""}
</section>
<p id="message" role="status" aria-live="polite" data-testid="message"></p>
<section id="enroll" ${facts.enrolled ? "hidden" : ""}>
<h2>Add the first passkey</h2>
<p>Enter the enrollment code the server printed on its terminal.</p>
<label for="enroll-code">Enrollment code</label>
<input id="enroll-code" data-testid="enroll-code" autocomplete="one-time-code" spellcheck="false">
<button type="button" id="enroll-button" class="primary" data-testid="enroll">Create passkey</button>
</section>
<section id="sign-in" ${facts.enrolled ? "" : "hidden"}>
<button type="button" id="sign-in-button" class="primary" data-testid="sign-in">Sign in with your passkey</button>
</section>
<section id="consent" hidden>
<h2>Allow ${e(facts.clientName)}?</h2>
<button type="button" id="approve" class="primary" data-testid="consent-approve">Allow</button>
<button type="button" id="deny" data-testid="consent-deny">Deny</button>
</section>
</main>
</body>
</html>
`;
}

/**
 * Whenever the server offers `t3:write` (it found a gate), whatever scope the client asked: a box,
 * ticked, that the person may untick to allow reads only (ADR 0070). Unticked, the session is
 * granted `t3:read` alone. Without a gate there is no box and nothing to write with.
 */
function writeChoice(scopes: readonly string[]): string {
  if (!scopes.includes("t3:write")) return "";
  return `<dt>Writes</dt><dd><label><input type="checkbox" id="allow-write" data-testid="consent-write" checked> t3:write: ${escapeHtml(WRITE_SCOPE_WORDS)}</label></dd>`;
}

export function errorPage(message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>T3 Connector - sign-in refused</title>
<link rel="stylesheet" href="/oauth/page.css"></head>
<body><main><h1>This sign-in cannot go on</h1><p data-testid="error">${escapeHtml(message)}</p></main></body></html>
`;
}

/** Core's one stylesheet of the decision pages (ADR 0073), then what only these pages add. */
export const PAGE_CSS = `${DECISION_PAGE_CSS}
main{margin:0 auto;border-radius:0}
@media (min-width:40rem){main{margin:2rem auto;border-radius:8px;min-height:0}}
dt{font-weight:600;margin-top:.5rem}dd{margin:0;overflow-wrap:anywhere}
#message:empty{display:none}#message{background:var(--code-bg);padding:.5rem .75rem;border-radius:6px}
`;

/** The page's script: base64url <-> ArrayBuffer around navigator.credentials, no library. */
export const PAGE_JS = `const body = document.body;
const transaction = body.dataset.transaction;
const message = document.getElementById("message");
const show = (id, visible) => { document.getElementById(id).hidden = !visible; };
const say = (text) => { message.textContent = text; };
${PAGE_BYTES_SCRIPT}
async function post(path, payload) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ transaction, ...payload }),
    credentials: "same-origin",
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(answer.error_description || answer.error || "refused");
  return answer;
}
function creationOptions(o) {
  return { ...o, challenge: toBytes(o.challenge), user: { ...o.user, id: toBytes(o.user.id) },
    excludeCredentials: (o.excludeCredentials || []).map((c) => ({ ...c, id: toBytes(c.id) })) };
}
function requestOptions(o) {
  return { ...o, challenge: toBytes(o.challenge),
    allowCredentials: (o.allowCredentials || []).map((c) => ({ ...c, id: toBytes(c.id) })) };
}
function registrationJson(credential) {
  const r = credential.response;
  return { id: credential.id, rawId: toText(credential.rawId), type: credential.type,
    clientExtensionResults: credential.getClientExtensionResults(),
    authenticatorAttachment: credential.authenticatorAttachment || undefined,
    response: { clientDataJSON: toText(r.clientDataJSON), attestationObject: toText(r.attestationObject),
      transports: r.getTransports ? r.getTransports() : [] } };
}
function assertionJson(credential) {
  const r = credential.response;
  return { id: credential.id, rawId: toText(credential.rawId), type: credential.type,
    clientExtensionResults: credential.getClientExtensionResults(),
    authenticatorAttachment: credential.authenticatorAttachment || undefined,
    response: { clientDataJSON: toText(r.clientDataJSON), authenticatorData: toText(r.authenticatorData),
      signature: toText(r.signature), userHandle: r.userHandle ? toText(r.userHandle) : undefined } };
}
document.getElementById("enroll-button").addEventListener("click", async () => {
  try {
    const code = document.getElementById("enroll-code").value;
    const started = await post("/oauth/enroll/options", { code });
    const credential = await navigator.credentials.create({ publicKey: creationOptions(started.options) });
    const enrolled = await post("/oauth/enroll/verify", { registrationId: started.registrationId, response: registrationJson(credential) });
    show("enroll", false);
    // Creating the passkey verified you: no second ceremony to sign in.
    show(enrolled.signedIn ? "consent" : "sign-in", true);
    say(enrolled.signedIn ? "Passkey created; you are signed in. Allow or deny this client." : "Passkey created. Now sign in with it.");
  } catch (error) {
    say("Enrollment failed: " + error.message);
  }
});
document.getElementById("sign-in-button").addEventListener("click", async () => {
  try {
    const started = await post("/oauth/sign-in/options", {});
    const credential = await navigator.credentials.get({ publicKey: requestOptions(started.options) });
    await post("/oauth/sign-in/verify", { ticketId: started.ticketId, response: assertionJson(credential) });
    show("sign-in", false);
    show("consent", true);
    say("Signed in. Allow or deny this client.");
  } catch (error) {
    say("Sign-in failed: " + error.message);
  }
});
for (const [id, decision] of [["approve", "approve"], ["deny", "deny"]]) {
  document.getElementById(id).addEventListener("click", async () => {
    try {
      const write = document.getElementById("allow-write");
      const answer = await post("/oauth/consent", { decision, allowWrite: write ? write.checked : false });
      say(decision === "approve" ? "Allowed. Returning to the client..." : "Denied. Returning to the client...");
      window.location.assign(answer.redirect);
    } catch (error) {
      say("Consent failed: " + error.message);
    }
  });
}
body.dataset.ready = "true";
`;
