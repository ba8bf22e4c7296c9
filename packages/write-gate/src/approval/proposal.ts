/**
 * @module What a client may propose with its approval request (ADR 0017), and what the page ticks
 * at first. The client proposes, the human decides: the request's scope is always the whole live
 * inventory, the proposal only chooses the first ticks. A name the live inventory does not list
 * refuses the whole request (`proposal_invalid`, listing what is valid) rather than being dropped:
 * a client that misnamed what it needs should learn it before a human approves the wrong thing.
 */
import { ConnectorError } from "@t3-connector/core";
import {
  ACTIONS,
  FOLDER_NAMING_ACTIONS,
  isActionId,
  type LeaseScope,
} from "@t3-connector/write-engine/actions";
import type { EnvironmentLeftOut } from "../contract.js";
import type { InventoryThread } from "./inventory.js";

/** The client's own words: at most this many characters after cleaning. */
export const PURPOSE_MAX_CHARS = 280;

export interface Proposal {
  readonly environments?: readonly string[];
  readonly projects?: readonly string[];
  readonly actions?: readonly string[];
  readonly threads?: readonly string[];
}

export interface ClientInfo {
  readonly name: string;
  readonly version?: string;
  /** An OAuth session's sign-in time (ISO 8601): the page names the session by it (ADR 0049). */
  readonly signedInAt?: string;
}

/** The page's first ticks; the same shape as `selectionSchema` but it may keep nothing. */
export interface Preselection {
  readonly environments: ReadonlyArray<{
    readonly environmentId: string;
    readonly projectIds: readonly string[];
    readonly actions: readonly string[];
  }>;
}

// Control characters, and the bidirectional overrides that can make text read as something else.
const UNSAFE_CHARACTERS = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]+/gu;
// Invisible format characters (zero-width space and joiners, word joiner, BOM, soft hyphen, tags):
// removed, so two texts that look the same on the page are the same text.
const INVISIBLE_CHARACTERS = /[\p{Cf}\u115f\u1160\u3164\uffa0]+/gu;

/** Untrusted text for the page: control characters become spaces, trimmed, at most 280 characters. */
export function cleanText(text: string | undefined, max = PURPOSE_MAX_CHARS): string | undefined {
  if (text === undefined) return undefined;
  const cleaned = text
    .replace(UNSAFE_CHARACTERS, " ")
    .replace(INVISIBLE_CHARACTERS, "")
    .replace(/\s+/g, " ")
    .trim();
  if (cleaned === "") return undefined;
  return [...cleaned].slice(0, max).join("");
}

/** An empty list proposes nothing; the page then falls back to the default ticks for that part. */
export function proposalOf(ask: Proposal): Proposal | undefined {
  const proposal: { -readonly [K in keyof Proposal]: Proposal[K] } = {};
  for (const key of ["environments", "projects", "actions", "threads"] as const) {
    const values = ask[key];
    if (values !== undefined && values.length > 0) proposal[key] = [...new Set(values)];
  }
  return Object.keys(proposal).length === 0 ? undefined : proposal;
}

export interface InventoryView {
  readonly scope: LeaseScope;
  readonly leftOut: readonly EnvironmentLeftOut[];
  readonly threads: readonly (InventoryThread & { readonly environmentId: string })[];
}

/**
 * Refuses a proposal that names anything the live inventory does not list. An environment that
 * is configured but down (left out) is not unknown: it is reported in `leftOut` and ticks nothing.
 */
export function checkProposal(proposal: Proposal, inventory: InventoryView): void {
  const environments = [
    ...inventory.scope.environments.map((grant) => ({ alias: grant.alias, id: grant.environmentId })),
    ...inventory.leftOut.map((left) => ({ alias: left.alias, id: left.environmentId })),
  ];
  const projects = inventory.scope.environments.flatMap((grant) =>
    grant.projects.map((project) => project.id),
  );
  const threads = new Set(inventory.threads.map((thread) => thread.id));
  const unknown = {
    environments: (proposal.environments ?? []).filter(
      (name) => !environments.some((environment) => environment.alias === name || environment.id === name),
    ),
    projects: (proposal.projects ?? []).filter((id) => !projects.includes(id)),
    actions: (proposal.actions ?? []).filter((action) => !isActionId(action)),
    threads: (proposal.threads ?? []).filter((id) => !threads.has(id)),
  };
  const named = Object.entries(unknown).filter(([, names]) => names.length > 0);
  if (named.length === 0) return;
  const valid = {
    environments: environments.map((environment) => environment.alias),
    projects,
    actions: ACTIONS.map((entry) => entry.action),
  };
  const said = named.map(([part, names]) => `${part} ${few(names.map((name) => JSON.stringify(name)))}`);
  throw new ConnectorError(
    "proposal_invalid",
    `the gate's live inventory does not list ${said.join("; ")}. Valid environments: ${few(valid.environments)}; ` +
      `projects: ${few(valid.projects)}; actions are catalogue ids such as thread.pin; threads must be live threads ` +
      "of those projects (propose the project for an archived one). Nothing was requested.",
    { details: { unknown: Object.fromEntries(named), valid } },
  );
}

/** A list for a message: a gate may hold thousands of projects, the message names the first ones. */
const LISTED_IN_MESSAGE = 20;
function few(names: readonly string[]): string {
  const shown = names.slice(0, LISTED_IN_MESSAGE).join(", ");
  return names.length > LISTED_IN_MESSAGE ? `${shown} and ${names.length - LISTED_IN_MESSAGE} more` : shown;
}

/**
 * The first ticks: the proposal intersected with the live inventory; what the
 * proposal leaves open defaults to every environment and project and the non-destructive actions.
 * A destructive action, or one that names a folder (project create and move), is never ticked
 * unless the client proposed it.
 */
export function preselect(proposal: Proposal | undefined, inventory: InventoryView): Preselection {
  const wantedEnvironments = proposal?.environments;
  const threadProjects = inventory.threads
    .filter((thread) => proposal?.threads?.includes(thread.id) === true)
    .map((thread) => thread.projectId);
  const wantedProjects =
    proposal?.projects === undefined && threadProjects.length === 0
      ? undefined
      : new Set([...(proposal?.projects ?? []), ...threadProjects]);
  const wantedActions = proposal?.actions === undefined ? undefined : new Set(proposal.actions);
  const chosen: Array<Preselection["environments"][number]> = [];
  for (const grant of inventory.scope.environments) {
    const named =
      wantedEnvironments?.some((name) => name === grant.alias || name === grant.environmentId) === true;
    if (wantedEnvironments !== undefined && !named) continue;
    let projectIds = grant.projects.map((project) => project.id);
    if (wantedProjects !== undefined) {
      const inHere = projectIds.filter((id) => wantedProjects.has(id));
      // An environment the client named keeps all its projects when none of the named ones is in it.
      if (inHere.length > 0 || !named) projectIds = inHere;
    }
    const actions = grant.actions.filter((action) =>
      wantedActions === undefined
        ? ACTION_GROUP.get(action) !== "destructive" && !NAMES_A_FOLDER.has(action)
        : wantedActions.has(action),
    );
    if (projectIds.length === 0 || actions.length === 0) continue;
    chosen.push({ environmentId: grant.environmentId, projectIds, actions });
  }
  return { environments: chosen };
}

const ACTION_GROUP: ReadonlyMap<string, string> = new Map(
  ACTIONS.map((entry) => [entry.action, entry.group]),
);

/** Never ticked unless the client proposed them, like a destructive action (ADR 0074). */
const NAMES_A_FOLDER: ReadonlySet<string> = new Set(FOLDER_NAMING_ACTIONS);
