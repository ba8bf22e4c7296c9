// The approval page. Served as files (the CSP forbids inline script); talks only to its own
// origin: POST + JSON for everything, and one GET /api/events stream whose events only nudge the
// page to read POST /api/state again (state is the truth, an event is a hint).

import { codeOf, post } from "./api.js";
import { fillChanges } from "./changes-view.js";
import { DEAD_ENDS, deadEndFor } from "./dead-ends.js";
import { byId, clearInlineError, clockTime, element, showInlineError } from "./dom.js";
import { showLease, tickLease } from "./lease-view.js";
import { passkeyErrorWords } from "./passkey-errors.js";
import { enroll, removalFailed, removePasskey, showPasskeys, stepUp } from "./passkeys-view.js";
import { clearRequest, currentRequest, readSelection, showRequest, tickRequest } from "./request-view.js";
import { showWarnings } from "./warnings-view.js";

const IDLE_TITLE = "t3-connector — write gate";
let requestId = new URLSearchParams(window.location.search).get("request");
let expiryChecked = false;
let busy = false;
/** Requests this page already knew of: only newer ones make a desktop notification. */
let knownPending = null;
/** The catalogue: action id → { label, description, group }. */
const catalogue = new Map();

function say(text, isError) {
  const box = byId("message");
  box.textContent = text;
  box.className = isError ? "error" : "";
}

function showDeadEnd(code) {
  const words = deadEndFor(code);
  const section = byId("dead-end");
  section.hidden = false;
  section.dataset.code = code;
  byId("dead-end-title").textContent = words.title;
  byId("dead-end-what").textContent = words.what;
  byId("dead-end-next").textContent = words.next;
}

function hideDeadEnd() {
  byId("dead-end").hidden = true;
  delete byId("dead-end").dataset.code;
}

/** Forgets the request in the address bar, so a reload shows the gate's state, not a dead link. */
function leaveRequest() {
  clearRequest();
  hideDeadEnd();
  requestId = null;
  window.history.replaceState(null, "", "/");
}

async function loadRequest(id) {
  if (id !== requestId) expiryChecked = false;
  requestId = id;
  try {
    const view = await post("/api/requests/view", { requestId: id });
    hideDeadEnd();
    for (const entry of view.actionInfo ?? []) catalogue.set(entry.action, entry);
    showRequest(view);
    void fillChanges(id);
  } catch (error) {
    const code = codeOf(error);
    clearRequest();
    // A malformed id in the address is as unknown to the gate as one it never made.
    if (code === "body_invalid") showDeadEnd("request_invalid");
    else if (code in DEAD_ENDS || error.status === 404 || error.status === 410) showDeadEnd(code);
    else say(`The request could not be shown: ${code}`, true);
  }
}

function showPending(pending) {
  const others = pending.filter((entry) => entry.requestId !== currentRequest()?.requestId);
  byId("pending").hidden = others.length === 0;
  byId("pending-list").replaceChildren(
    ...others.map((entry) => {
      const item = element("li", undefined, { "data-testid": "pending-request" });
      const who = entry.client
        ? `${entry.client.name}${entry.client.version ? ` ${entry.client.version}` : ""}`
        : "A client";
      item.append(`${who}, until ${clockTime(entry.expiresAt)}: `);
      if (entry.purpose) item.append(element("q", entry.purpose), " ");
      item.append(
        element("a", "Open this request", { href: `/?request=${encodeURIComponent(entry.requestId)}` }),
      );
      return item;
    }),
  );
  const count = pending.length;
  document.title = count > 0 ? `(${count}) Approval waiting — t3-connector` : IDLE_TITLE;
}

function notifyNew(pending) {
  const ids = new Set(pending.map((entry) => entry.requestId));
  const fresh = knownPending === null ? [] : pending.filter((entry) => !knownPending.has(entry.requestId));
  knownPending = ids;
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  for (const entry of fresh) {
    const note = new Notification("Approval waiting — t3-connector", {
      body: entry.purpose ?? "A client asks to write to your T3 environments.",
      tag: entry.requestId,
    });
    note.addEventListener("click", () => {
      window.focus();
      window.history.replaceState(null, "", `/?request=${encodeURIComponent(entry.requestId)}`);
      loadRequest(entry.requestId);
    });
  }
}

async function refresh() {
  const state = await post("/api/state");
  showPasskeys(state, onRemovePasskey);
  showWarnings(state);
  showLease(state, catalogue, endLease);
  const pending = state.pendingRequests;
  if (pending === undefined) return state;
  notifyNew(pending);
  const shown = currentRequest();
  // While an approval or a denial is on its way, its own answer tells the page what happened.
  if (busy) {
    showPending(pending);
    return state;
  }
  if (shown !== null && !pending.some((entry) => entry.requestId === shown.requestId)) {
    // Decided, expired or replaced elsewhere: ask the gate which, and say so.
    await loadRequest(shown.requestId);
  } else if (shown === null && byId("dead-end").hidden && pending.length > 0) {
    // Nothing on screen: the newest waiting request comes up by itself. (Under a dead-end notice
    // it is listed with a link instead, so the notice stays readable.)
    const newest = pending.reduce((a, b) => (Date.parse(b.expiresAt) > Date.parse(a.expiresAt) ? b : a));
    window.history.replaceState(null, "", `/?request=${encodeURIComponent(newest.requestId)}`);
    await loadRequest(newest.requestId);
  }
  showPending(pending);
  void fillChanges(currentRequest()?.requestId);
  return state;
}

/**
 * The gate allows the page 60 requests a minute. A lease writing steadily sends a nudge per write,
 * so state reads are spaced at least this far apart (at most 40 a minute), leaving room for
 * Revoke, Approve and Deny whatever the write rate.
 */
const MIN_REFRESH_GAP_MS = 1500;
let lastRefreshAt = Number.NEGATIVE_INFINITY;
let refreshing = null;
let again = false;
let againAfterAction = false;
/** Ends the spacing wait of a read that has not started yet; null while none waits. */
let startWaitingRead = null;

/**
 * Coalesces nudges: at most one state read in flight, and one more after it if asked meanwhile.
 * `afterAction` (the person's own click: approve, deny, revoke, a passkey) reads at once, even when
 * a gate's nudge is still waiting out its spacing (that read starts now and answers both); those
 * come at a person's pace, so only the gate's nudges need spacing.
 */
function scheduleRefresh(afterAction) {
  if (refreshing !== null) {
    if (afterAction === true && startWaitingRead !== null) {
      startWaitingRead();
      return refreshing;
    }
    again = true;
    againAfterAction = againAfterAction || afterAction === true;
    return refreshing;
  }
  const wait = afterAction === true ? 0 : lastRefreshAt + MIN_REFRESH_GAP_MS - Date.now();
  const spaced =
    wait > 0
      ? new Promise((resolve) => {
          const timer = setTimeout(resolve, wait);
          startWaitingRead = () => {
            clearTimeout(timer);
            resolve();
          };
        })
      : Promise.resolve();
  refreshing = spaced
    .then(() => {
      startWaitingRead = null;
      // Nudges that came while waiting are answered by this read.
      again = false;
      againAfterAction = false;
      lastRefreshAt = Date.now();
      return refresh();
    })
    .catch((error) => say(`The gate did not answer: ${codeOf(error)}`, true))
    .finally(() => {
      refreshing = null;
      if (again) {
        const urgent = againAfterAction;
        again = false;
        againAfterAction = false;
        scheduleRefresh(urgent);
      }
    });
  return refreshing;
}

function listen() {
  if (!("EventSource" in window)) return;
  // The gate counts event streams per page load (ADR 0028): this page's own random name.
  const page = Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) =>
    byte.toString(16).padStart(2, "0"),
  ).join("");
  const events = new EventSource(`/api/events?page=${page}`);
  for (const name of ["request", "decision", "lease", "write", "passkeys", "warnings"]) {
    events.addEventListener(name, () => scheduleRefresh());
  }
  events.addEventListener("open", () => document.body.setAttribute("data-live", "true"));
}

function withButtons(run) {
  const buttons = [byId("approve"), byId("deny")];
  return async () => {
    if (busy) return;
    busy = true;
    for (const node of buttons) node.disabled = true;
    try {
      await run();
    } finally {
      busy = false;
      for (const node of buttons) node.disabled = false;
      // Read the gate again once the decision is settled: the lease, or the next waiting request.
      await scheduleRefresh(true);
    }
  };
}

/** Beside Approve and Deny, in words: the person looks where they pressed, not at the top. */
function decisionFailed(verb, error) {
  const code = codeOf(error);
  if (code in DEAD_ENDS) {
    clearRequest();
    showDeadEnd(code);
  } else {
    showInlineError("decision-error", `${verb} failed. ${passkeyErrorWords(error)}`);
  }
}

const approve = withButtons(async () => {
  clearInlineError("decision-error");
  const picked = readSelection();
  if (picked.problem) {
    // What is missing is in the details: unfold them so the ticks are in sight.
    byId("request-details").open = true;
    showInlineError("decision-error", picked.problem);
    return;
  }
  try {
    const { options } = await post("/api/requests/options", { requestId, selection: picked.selection });
    const response = await window.SimpleWebAuthnBrowser.startAuthentication({ optionsJSON: options });
    await post("/api/requests/approve", { requestId, response });
    leaveRequest();
    say("Lease granted.", false);
  } catch (error) {
    decisionFailed("Approval", error);
  }
});

const deny = withButtons(async () => {
  clearInlineError("decision-error");
  try {
    await post("/api/requests/deny", { requestId });
    leaveRequest();
    say("Request denied. The client is told; nothing was granted.", false);
  } catch (error) {
    decisionFailed("Deny", error);
  }
});

async function onRemovePasskey(credentialId) {
  try {
    await removePasskey(credentialId);
    say("Passkey removed.", false);
    await scheduleRefresh(true);
  } catch (error) {
    removalFailed(credentialId, `Removal failed. ${passkeyErrorWords(error)}`);
  }
}

function setUpNotifications() {
  const control = byId("notify");
  if (!("Notification" in window)) return;
  const update = () => {
    control.hidden = Notification.permission !== "default";
  };
  update();
  // Asked only when the person presses the button, never on its own.
  control.addEventListener("click", () => {
    Notification.requestPermission().then((answer) => {
      update();
      say(answer === "granted" ? "Desktop notifications are on." : "Desktop notifications stay off.", false);
    });
  });
}

/** Runs a passkey registration; a failure is told in words beside the button pressed. */
function registering(errorId, run) {
  return () => {
    clearInlineError(errorId);
    run()
      .then(() => {
        say("Passkey registered.", false);
        return scheduleRefresh(true);
      })
      .catch((error) => showInlineError(errorId, `Registration failed. ${passkeyErrorWords(error)}`));
  };
}

byId("enroll-submit").addEventListener(
  "click",
  registering("enroll-error", () => enroll({ code: byId("enroll-code").value })),
);
byId("add-passkey").addEventListener(
  "click",
  registering("add-passkey-error", () => stepUp({ purpose: "enroll" }).then((proof) => enroll(proof))),
);
byId("approve").addEventListener("click", approve);
byId("deny").addEventListener("click", deny);
/** The End button of one lease: only that lease closes; the others stay open. */
function endLease(leaseId) {
  return post("/api/leases/end", { leaseId })
    .then(() => {
      say("Lease ended.", false);
      return scheduleRefresh(true);
    })
    .catch((error) => say(`Ending the lease failed: ${codeOf(error)}`, true));
}
byId("revoke").addEventListener("click", () => {
  post("/api/revoke")
    .then(() => {
      say("Every lease revoked.", false);
      return scheduleRefresh(true);
    })
    .catch((error) => say(`Revoke failed: ${codeOf(error)}`, true));
});

setInterval(() => {
  if (!tickLease()) scheduleRefresh();
  if (!tickRequest() && !expiryChecked && requestId !== null) {
    // The countdown ran out: the gate says what became of the request (expired, most likely).
    expiryChecked = true;
    loadRequest(requestId);
  }
}, 1000);
setInterval(() => scheduleRefresh(), 15000);
setUpNotifications();
listen();
/** The catalogue's labels (a static file): the lease is named by label even after a reload. */
async function loadCatalogue() {
  try {
    const response = await fetch("/actions.json", { credentials: "same-origin" });
    for (const entry of await response.json()) catalogue.set(entry.action, entry);
  } catch {
    // Ids stand in for labels; nothing else depends on them.
  }
}

loadCatalogue()
  .then(() => (requestId === null ? undefined : loadRequest(requestId)))
  .then(() => scheduleRefresh())
  .then(() => document.body.setAttribute("data-ready", "true"));
