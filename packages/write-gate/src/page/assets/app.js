// The approval page. Served as a file (the CSP forbids inline script); talks only to its own
// origin through POST + JSON. Every value from the gate is shown with textContent, never as HTML.

(() => {
  const webauthn = window.SimpleWebAuthnBrowser;
  const byId = (id) => document.getElementById(id);
  const requestId = new URLSearchParams(window.location.search).get("request");
  let lease = null;
  let leaseSeenAt = 0;

  function say(text, isError) {
    const box = byId("message");
    box.textContent = text;
    box.className = isError ? "error" : "";
  }

  async function post(path, body) {
    const response = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body ?? {}),
      credentials: "same-origin",
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok)
      throw new Error(typeof data.error === "string" ? data.error : `http_${response.status}`);
    return data;
  }

  function element(tag, text, attributes) {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    for (const [name, value] of Object.entries(attributes ?? {})) node.setAttribute(name, value);
    return node;
  }

  function checkbox(label, attributes) {
    const wrapper = element("label");
    const input = element("input", undefined, { type: "checkbox", ...attributes });
    input.checked = true;
    wrapper.append(input, ` ${label}`);
    return wrapper;
  }

  function codeOf(error) {
    // Show the browser library's code (ERROR_CEREMONY_ABORTED, …) or the gate's, never a raw message.
    return error && typeof error.code === "string"
      ? error.code
      : error instanceof Error
        ? error.message
        : "failed";
  }

  function renderScope(container, scope, selectable) {
    container.replaceChildren();
    for (const grant of scope.environments) {
      const set = element("fieldset", undefined, { "data-environment": grant.environmentId });
      const legend = element("legend");
      if (selectable) {
        legend.append(
          checkbox(`${grant.label} (${grant.environmentId})`, {
            "data-kind": "environment",
            "data-testid": `env-${grant.alias}`,
          }),
        );
      } else {
        legend.textContent = `${grant.label} (${grant.environmentId})`;
      }
      set.append(legend, element("h4", "Projects"));
      const projects = element("div", undefined, { class: "projects" });
      for (const project of grant.projects) {
        const text = `${project.name} — ${project.workspaceRoots.join(", ")}`;
        projects.append(
          selectable
            ? checkbox(text, {
                "data-kind": "project",
                "data-id": project.id,
                "data-testid": `project-${project.id}`,
              })
            : element("div", text),
        );
      }
      set.append(projects, element("h4", `Actions (${grant.actions.length})`));
      const actions = element("div", undefined, { class: "actions" });
      for (const action of grant.actions) {
        actions.append(
          selectable
            ? checkbox(action, {
                "data-kind": "action",
                "data-id": action,
                "data-testid": `action-${action}`,
              })
            : element("div", action),
        );
      }
      set.append(actions);
      container.append(set);
    }
  }

  // Actions this environment's T3 version cannot run: named, so the person knows why they are
  // missing, but never offered as a choice.
  function renderUnsupported(container, unsupported) {
    for (const entry of unsupported) {
      const set = [...container.querySelectorAll("fieldset[data-environment]")].find(
        (candidate) => candidate.dataset.environment === entry.environmentId,
      );
      if (set === undefined || entry.actions.length === 0) continue;
      const version = entry.serverVersion === null ? "this T3 version" : `T3 ${entry.serverVersion}`;
      set.append(
        element("h4", `Not supported by ${version} (${entry.actions.length})`, {
          "data-testid": `unsupported-${entry.environmentId}`,
        }),
      );
      const list = element("ul", undefined, { class: "unsupported" });
      for (const action of entry.actions) {
        list.append(element("li", action, { "data-testid": `unsupported-action-${action}` }));
      }
      set.append(list);
    }
  }

  function selectionFrom(container) {
    const environments = [];
    for (const set of container.querySelectorAll("fieldset[data-environment]")) {
      if (!set.querySelector('input[data-kind="environment"]').checked) continue;
      const ids = (kind) =>
        [...set.querySelectorAll(`input[data-kind="${kind}"]`)]
          .filter((input) => input.checked)
          .map((input) => input.dataset.id);
      environments.push({
        environmentId: set.dataset.environment,
        projectIds: ids("project"),
        actions: ids("action"),
      });
    }
    return { environments };
  }

  function renderLease() {
    const section = byId("lease");
    section.hidden = lease === null;
    if (lease === null) return;
    byId("lease-fingerprint").textContent = lease.scopeFingerprint;
    renderScope(byId("lease-scope"), lease.scope, false);
    const rows = byId("writes");
    rows.replaceChildren();
    for (const write of lease.writes) {
      const row = element("tr");
      for (const value of [
        write.at,
        write.environmentId,
        write.action,
        write.operationId,
        write.code ? `${write.state} (${write.code})` : write.state,
      ]) {
        row.append(element("td", value));
      }
      rows.append(row);
    }
    tick();
  }

  function tick() {
    if (lease === null) return;
    const left = Math.max(0, lease.remainingMs - (Date.now() - leaseSeenAt));
    const minutes = Math.floor(left / 60000);
    const seconds = Math.floor((left % 60000) / 1000);
    byId("countdown").textContent = `${minutes}:${String(seconds).padStart(2, "0")}`;
    if (left === 0) refresh().catch(() => {});
  }

  function renderPasskeys(state) {
    byId("enroll").hidden = state.enrolled;
    byId("add-passkey").hidden = !state.enrolled;
    const list = byId("passkey-list");
    list.replaceChildren();
    for (const passkey of state.passkeys) {
      const item = element("li", `${passkey.id.slice(0, 16)}… added ${passkey.createdAt} `, {
        "data-testid": "passkey",
      });
      const remove = element("button", "Remove", { type: "button" });
      remove.addEventListener("click", () => removePasskey(passkey.id));
      item.append(remove);
      list.append(item);
    }
  }

  async function refresh() {
    const state = await post("/api/state");
    renderPasskeys(state);
    lease = state.lease.active ? state.lease : null;
    leaseSeenAt = Date.now();
    renderLease();
    return state;
  }

  async function loadRequest() {
    if (requestId === null) return;
    try {
      const view = await post("/api/requests/view", { requestId });
      byId("request").hidden = false;
      byId("request-fingerprint").textContent = view.scopeFingerprint;
      byId("duration").textContent = String(view.durationMinutes);
      renderScope(byId("request-scope"), view.scope, true);
      renderUnsupported(byId("request-scope"), view.unsupported ?? []);
      const leftOut = byId("left-out");
      leftOut.replaceChildren();
      for (const environment of view.leftOut) {
        leftOut.append(element("p", `Left out: ${environment.alias} (${environment.reason})`));
      }
    } catch (error) {
      say(`This approval request cannot be used: ${codeOf(error)}`, true);
    }
  }

  async function approve() {
    try {
      const selection = selectionFrom(byId("request-scope"));
      const { options } = await post("/api/requests/options", { requestId, selection });
      const response = await webauthn.startAuthentication({ optionsJSON: options });
      await post("/api/requests/approve", { requestId, response });
      byId("request").hidden = true;
      say("Lease granted.", false);
      await refresh();
    } catch (error) {
      say(`Approval failed: ${codeOf(error)}`, true);
    }
  }

  async function enroll(begin) {
    const { registrationId, options } = await post("/api/enrollment/options", begin);
    const response = await webauthn.startRegistration({ optionsJSON: options });
    await post("/api/enrollment/finish", { registrationId, response });
    say("Passkey registered.", false);
    await refresh();
  }

  async function stepUp(body) {
    const { ticketId, options } = await post("/api/passkeys/step-up", body);
    const response = await webauthn.startAuthentication({ optionsJSON: options });
    return { ticketId, response };
  }

  async function removePasskey(credentialId) {
    try {
      const proof = await stepUp({ purpose: "remove", credentialId });
      await post("/api/passkeys/remove", { credentialId, ...proof });
      say("Passkey removed.", false);
      await refresh();
    } catch (error) {
      say(`Removal failed: ${codeOf(error)}`, true);
    }
  }

  byId("enroll-submit").addEventListener("click", () => {
    enroll({ code: byId("enroll-code").value }).catch((error) =>
      say(`Enrollment failed: ${codeOf(error)}`, true),
    );
  });
  byId("add-passkey").addEventListener("click", () => {
    stepUp({ purpose: "enroll" })
      .then((proof) => enroll(proof))
      .catch((error) => say(`Enrollment failed: ${codeOf(error)}`, true));
  });
  byId("approve").addEventListener("click", () => approve());
  byId("revoke").addEventListener("click", () => {
    post("/api/revoke")
      .then(() => {
        say("Lease revoked.", false);
        return refresh();
      })
      .catch((error) => say(`Revoke failed: ${codeOf(error)}`, true));
  });

  setInterval(tick, 1000);
  setInterval(() => refresh().catch(() => {}), 15000);
  Promise.all([refresh(), loadRequest()])
    .then(() => document.body.setAttribute("data-ready", "true"))
    .catch((error) => say(`The gate did not answer: ${codeOf(error)}`, true));
})();
