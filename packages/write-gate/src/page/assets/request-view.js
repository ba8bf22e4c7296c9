// One approval request: who asked and why, the time left, and the tree of environments, projects
// and actions the person ticks. The tree starts from the gate's `preselected`, nothing else.

import { CHANGES_WORDS, changesLine } from "./changes-view.js";
import { button, byId, checkbox, clientLabel, element, identifier, minutesSeconds } from "./dom.js";

/** Risk groups in the order a person reads them; the destructive one is set apart. */
const GROUPS = [
  {
    id: "organize",
    title: "Organize",
    short: "organize",
    line: "Pin, rename, archive and similar: tidies up, runs nothing.",
  },
  {
    id: "run",
    title: "Run control",
    short: "run control",
    line: "Sends messages, answers, interrupts: starts or steers agent work.",
  },
  {
    id: "destructive",
    title: "Destructive — cannot be undone",
    short: "DESTRUCTIVE (cannot be undone)",
    line: "Deletes or rolls back. Ticked only if the client asked for it.",
  },
  { id: "other", title: "Other actions", short: "other", line: "" },
];

/** The page's narrow layout (app.css): there the details start folded so Approve is on screen. */
const NARROW = "(max-width: 40rem)";

let current = null;
let clockOffsetMs = 0;

export function currentRequest() {
  return current;
}

export function clearRequest() {
  current = null;
  byId("request").hidden = true;
  byId("request-scope").replaceChildren();
}

/** Renders `view` (POST /api/requests/view) into the request section. */
export function showRequest(view) {
  current = view;
  // The countdown reads the gate's clock, not the page's: the offset is taken once per view.
  const serverNow = Date.parse(view.serverNow ?? "");
  clockOffsetMs = Number.isNaN(serverNow) ? 0 : serverNow - Date.now();
  byId("request").hidden = false;
  byId("decision-error").hidden = true;
  byId("request-details").open = !window.matchMedia(NARROW).matches;
  const client = view.client;
  byId("request-client").textContent =
    client === undefined ? "a client that did not name itself" : clientLabel(client);
  const purpose = typeof view.purpose === "string" && view.purpose !== "" ? view.purpose : null;
  byId("purpose-box").hidden = purpose === null;
  byId("purpose").textContent = purpose ?? "";
  byId("request-fingerprint").textContent = view.scopeFingerprint;
  byId("duration").textContent = String(view.durationMinutes);
  byId("request-hint").textContent =
    view.proposal === undefined
      ? "The client proposed nothing in particular: everything is ticked except destructive actions. Untick what this lease must not cover; only what is ticked is granted."
      : "Ticked below is what the client proposed. Narrow or widen it within what the gate found; only what is ticked is granted.";
  if (view.replacesLease === true) {
    byId("request-hint").textContent +=
      " This client already holds a lease: approving replaces it with this one (the old lease ends).";
  }
  const info = new Map((view.actionInfo ?? []).map((entry) => [entry.action, entry]));
  const container = byId("request-scope");
  container.replaceChildren();
  const ceilings = view.ceilingChoices ?? [];
  if (ceilings.length > 0) container.append(ceilingBox(ceilings));
  const named = view.namedThreads ?? [];
  if (named.length > 0) container.append(namedThreadsBox(named));
  const projectWrites = view.projectWrites ?? [];
  if (projectWrites.length > 0) container.append(projectWritesBox(projectWrites));
  for (const grant of view.scope.environments) {
    const picked = view.preselected
      ? view.preselected.environments.find((entry) => entry.environmentId === grant.environmentId)
      : { projectIds: grant.projects.map((project) => project.id), actions: grant.actions };
    container.append(environmentTree(grant, picked, info));
  }
  renderUnsupported(container, view.unsupported ?? []);
  showCeilingWords();
  // Every tick (and Select all / none, which announce a change) updates the line by Approve.
  container.onchange = showSummary;
  showSummary();
  const leftOut = byId("left-out");
  leftOut.replaceChildren();
  for (const environment of view.leftOut ?? []) {
    leftOut.append(element("p", `Left out: ${environment.alias} (${environment.reason})`));
  }
  tickRequest();
}

function environmentTree(grant, picked, info) {
  const set = element("fieldset", undefined, {
    class: "environment",
    "data-environment": grant.environmentId,
  });
  const legend = element("legend");
  legend.append(
    checkbox(
      [element("strong", grant.alias), ` — ${grant.label} (${grant.environmentId})`],
      { "data-kind": "environment", "data-testid": `env-${grant.alias}` },
      picked !== undefined,
    ),
  );
  set.append(legend);

  const projects = element("fieldset", undefined, { class: "projects" });
  projects.append(element("legend", `Projects (${grant.projects.length})`));
  const pickedProjects = new Set(picked?.projectIds ?? []);
  for (const project of grant.projects) {
    projects.append(
      checkbox(
        [project.name, element("span", ` ${project.workspaceRoots.join(", ")}`, { class: "path" })],
        { "data-kind": "project", "data-id": project.id, "data-testid": `project-${project.id}` },
        pickedProjects.has(project.id),
      ),
    );
  }
  set.append(projects);

  const pickedActions = new Set(picked?.actions ?? []);
  for (const group of GROUPS) {
    const actions = grant.actions.filter((action) => (info.get(action)?.group ?? "other") === group.id);
    if (actions.length === 0) continue;
    set.append(actionGroup(grant, group, actions, pickedActions, info));
  }
  return set;
}

function actionGroup(grant, group, actions, pickedActions, info) {
  const box = element("fieldset", undefined, {
    class: `group group-${group.id}`,
    "data-group": group.id,
    "data-testid": `group-${grant.alias}-${group.id}`,
  });
  const legend = element("legend");
  if (group.id === "destructive") legend.append(element("span", "⚠ ", { "aria-hidden": "true" }));
  legend.append(`${group.title} (${actions.length})`);
  box.append(legend);
  if (group.line !== "") box.append(element("p", group.line, { class: "group-line" }));
  if (group.id === "run") {
    // The ceiling's words where the risk lives: what an agent this lease starts may do here.
    box.append(
      element("p", "", {
        class: "ceiling-line",
        "data-ceiling-environment": grant.environmentId,
        "data-testid": `ceiling-words-${grant.alias}`,
      }),
    );
  }
  const inputs = [];
  const count = element("span", "", {
    class: "group-count",
    "data-testid": `count-${grant.alias}-${group.id}`,
  });
  const recount = () => {
    count.textContent = `${inputs.filter((input) => input.checked).length} of ${inputs.length} ticked`;
  };
  const setAll = (value) => {
    for (const input of inputs) input.checked = value;
    // What was just ticked is shown, never ticked out of sight.
    if (value) fold.open = true;
    recount();
    box.dispatchEvent(new Event("change", { bubbles: true }));
  };
  const tools = element("div", undefined, { class: "group-tools" });
  tools.append(
    button(
      "Select all",
      {
        "aria-label": `Select all ${group.title} actions in ${grant.alias}`,
        "data-testid": `all-${grant.alias}-${group.id}`,
      },
      () => setAll(true),
    ),
    button(
      "Select none",
      {
        "aria-label": `Select no ${group.title} actions in ${grant.alias}`,
        "data-testid": `none-${grant.alias}-${group.id}`,
      },
      () => setAll(false),
    ),
    count,
  );
  box.append(tools);
  const list = element("div", undefined, { class: "actions" });
  for (const action of actions) {
    const entry = info.get(action);
    const label = checkbox(
      entry === undefined
        ? [element("span", action, { class: "action-label" })]
        : [
            element("span", entry.label, { class: "action-label" }),
            identifier(action),
            element("span", entry.description, { class: "action-line" }),
          ],
      { "data-kind": "action", "data-id": action, "data-testid": `action-${action}`, "data-group": group.id },
      pickedActions.has(action),
    );
    const input = label.querySelector("input");
    input.addEventListener("change", recount);
    inputs.push(input);
    list.append(label);
  }
  recount();
  // A group with nothing ticked starts folded, so the decision buttons stay near on a phone; its
  // count and Select all say what is in it, and one click (or Enter) unfolds it.
  const fold = element("details", undefined, { "data-testid": `fold-${grant.alias}-${group.id}` });
  fold.open = inputs.some((input) => input.checked);
  fold.append(element("summary", `Show the ${actions.length} actions`), list);
  box.append(fold);
  return box;
}

/**
 * The threads the client named, by title and environment (ADR 0041): the lease admits writes to
 * these only, unless the person ticks the widening control below them.
 */
function namedThreadsBox(named) {
  const box = element("fieldset", undefined, { class: "named-threads", "data-testid": "named-threads" });
  box.append(element("legend", `Threads the client named (${named.length})`));
  box.append(
    element("p", "Writes under this lease may touch only these threads (and threads it starts itself).", {
      class: "group-line",
    }),
  );
  box.append(element("p", CHANGES_WORDS, { class: "group-line" }));
  const list = element("ul");
  for (const thread of named) {
    const item = element("li");
    item.append(
      element("span", `“${thread.title}” in ${thread.alias}`, {
        "data-testid": `named-thread-${thread.alias}-${thread.threadId}`,
      }),
      " — ",
      changesLine(thread.environmentId, thread.threadId, `changes-${thread.alias}-${thread.threadId}`),
    );
    list.append(item);
  }
  box.append(list);
  box.append(
    checkbox(
      ["Widen to every thread of the ticked projects, not only the ones named"],
      { "data-kind": "whole-projects", "data-testid": "whole-projects" },
      false,
    ),
  );
  return box;
}

function widenedToProjects() {
  return byId("request-scope").querySelector('input[data-kind="whole-projects"]')?.checked === true;
}

/**
 * The project creates and forced deletes the client named (ADR 0074), in the gate's words: the
 * exact folder and whether it would be made, or how many threads a delete takes. The lease admits
 * only these inputs, so what is read here is what is granted.
 */
function projectWritesBox(writes) {
  const box = element("fieldset", undefined, { class: "named-threads", "data-testid": "project-writes" });
  box.append(element("legend", `Project changes the client named (${writes.length})`));
  box.append(
    element(
      "p",
      "The lease allows exactly these, with this folder and this flag; nothing else of their kind.",
      {
        class: "group-line",
      },
    ),
  );
  const list = element("ul");
  for (const [index, write] of writes.entries()) {
    list.append(
      element("li", `In ${write.alias}: ${write.words}`, { "data-testid": `project-write-${index}` }),
    );
  }
  box.append(list);
  return box;
}

/** The summary's words for the named threads: what the lease is limited to, or that it was widened. */
function threadWords(named) {
  const list = named.map((thread) => `“${thread.title}” (${thread.alias})`).join(", ");
  return widenedToProjects()
    ? `every thread of these projects (widened from the threads the client named: ${list})`
    : `only the threads the client named: ${list}`;
}

/**
 * The runtime ceiling: one for the whole lease, highest offered first (what the client asked),
 * lower ones to narrow it. The words under each Run group follow the choice.
 */
function ceilingBox(ceilings) {
  const box = element("fieldset", undefined, { class: "ceiling group-run", "data-testid": "ceiling" });
  box.append(element("legend", "How far agents may act on their own"));
  box.append(
    element(
      "p",
      "Launches, delegated tasks and mode switches under this lease may run an agent at most in the mode ticked here.",
      { class: "group-line" },
    ),
  );
  ceilings.forEach((choice, index) => {
    const label = element("label", undefined, { class: "check" });
    const input = element("input", undefined, {
      type: "radio",
      name: "runtime-ceiling",
      value: choice.mode,
      "data-testid": `ceiling-${choice.mode}`,
    });
    input.checked = index === 0;
    input.addEventListener("change", showCeilingWords);
    const words = element("span", undefined, { class: "check-words" });
    words.append(
      identifier(choice.mode),
      element("span", ` — ${Object.values(choice.words).join("; ")}`, { class: "action-line" }),
    );
    label.append(input, words);
    box.append(label);
  });
  return box;
}

/**
 * One line by the Approve button saying what approving grants as ticked now: environments with
 * their projects, the threads the client named, the action groups, and the runtime ceiling in
 * words. On a phone the details are folded, so this line is what the person reads.
 */
function showSummary() {
  byId("request-summary").textContent = summaryText();
}

function summaryText() {
  if (current === null) return "";
  const info = new Map((current.actionInfo ?? []).map((entry) => [entry.action, entry]));
  const parts = [];
  const ticked = [];
  for (const set of byId("request-scope").querySelectorAll("fieldset[data-environment]")) {
    if (!set.querySelector('input[data-kind="environment"]').checked) continue;
    const grant = current.scope.environments.find((entry) => entry.environmentId === set.dataset.environment);
    if (grant === undefined) continue;
    ticked.push(grant.environmentId);
    const checked = (kind) =>
      [...set.querySelectorAll(`input[data-kind="${kind}"]`)]
        .filter((input) => input.checked)
        .map((input) => input.dataset.id);
    const projectIds = new Set(checked("project"));
    const projects = grant.projects
      .filter((project) => projectIds.has(project.id))
      .map((project) => project.name);
    const actions = checked("action");
    parts.push(`${grant.alias} — ${projectWords(projects)}; ${groupWords(actions, info)}`);
  }
  if (parts.length === 0) return "nothing yet: tick at least one environment, project and action.";
  const named = current.namedThreads ?? [];
  if (named.length > 0) parts.push(threadWords(named));
  for (const write of current.projectWrites ?? []) parts.push(`${write.words} (${write.alias})`);
  const ceiling = (current.ceilingChoices ?? []).find((entry) => entry.mode === chosenCeiling());
  if (ceiling !== undefined) {
    const words = ticked.map((id) => ceiling.words[id]).filter((line) => line !== undefined);
    parts.push(`agents at most ${ceiling.mode}: ${words.join("; ")}`);
  }
  return `${parts.join(" · ")}.`;
}

/** Projects by name while few; past three, the count and the first three, so the line stays short. */
function projectWords(names) {
  if (names.length === 0) return "no project";
  if (names.length === 1) return `project ${names[0]}`;
  if (names.length <= 3) return `projects ${names.join(", ")}`;
  return `${names.length} projects (${names.slice(0, 3).join(", ")}, …)`;
}

/** "organize (Pin), run control (5 actions)": a group's actions named while they are few. */
function groupWords(actions, info) {
  if (actions.length === 0) return "no action";
  const words = [];
  for (const group of GROUPS) {
    const inGroup = actions.filter((action) => (info.get(action)?.group ?? "other") === group.id);
    if (inGroup.length === 0) continue;
    const named =
      inGroup.length <= 2
        ? inGroup.map((action) => info.get(action)?.label ?? action).join(", ")
        : `${inGroup.length} actions`;
    words.push(`${group.short} (${named})`);
  }
  return words.join(", ");
}

function chosenCeiling() {
  return byId("request-scope").querySelector('input[name="runtime-ceiling"]:checked')?.value;
}

function showCeilingWords() {
  const choice = (current?.ceilingChoices ?? []).find((entry) => entry.mode === chosenCeiling());
  for (const line of byId("request-scope").querySelectorAll("p[data-ceiling-environment]")) {
    const words = choice?.words?.[line.dataset.ceilingEnvironment];
    line.textContent = words === undefined ? "" : `Ceiling ${choice.mode}: ${words}.`;
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
      const item = element("li", undefined, { "data-testid": `unsupported-action-${action}` });
      item.append(identifier(action));
      list.append(item);
    }
    set.append(list);
  }
}

/**
 * What the person ticked, as the gate's Selection; or a sentence saying what is missing (an
 * environment kept with no project or no action grants nothing, so the gate would refuse it).
 */
export function readSelection() {
  const environments = [];
  for (const set of byId("request-scope").querySelectorAll("fieldset[data-environment]")) {
    if (!set.querySelector('input[data-kind="environment"]').checked) continue;
    const ids = (kind) =>
      [...set.querySelectorAll(`input[data-kind="${kind}"]`)]
        .filter((input) => input.checked)
        .map((input) => input.dataset.id);
    const alias = set.querySelector("legend strong")?.textContent ?? set.dataset.environment;
    const entry = {
      environmentId: set.dataset.environment,
      projectIds: ids("project"),
      actions: ids("action"),
    };
    if (entry.projectIds.length === 0)
      return { problem: `Tick at least one project in ${alias}, or untick ${alias}.` };
    if (entry.actions.length === 0)
      return { problem: `Tick at least one action in ${alias}, or untick ${alias}.` };
    environments.push(entry);
  }
  if (environments.length === 0) return { problem: "Tick at least one environment, or deny the request." };
  const runtimeCeiling = chosenCeiling();
  return {
    selection: {
      environments,
      ...(runtimeCeiling === undefined ? {} : { runtimeCeiling }),
      ...(widenedToProjects() ? { wholeProjects: true } : {}),
    },
  };
}

/** Updates the request's countdown; answers false once it has run out. */
export function tickRequest() {
  if (current === null) return true;
  const left = Date.parse(current.expiresAt) - (Date.now() + clockOffsetMs);
  byId("request-countdown").textContent = minutesSeconds(left);
  return left > 0;
}
