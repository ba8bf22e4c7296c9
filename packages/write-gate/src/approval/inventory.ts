/**
 * @module Builds each environment's grant from its LIVE shell: every
 * non-deleted project, with every catalogue action that environment's T3 version can run (the
 * others are listed apart, never granted: ADR 0009). Nothing here comes from the client.
 */

import { isConnectorError } from "@t3-connector/core";
import type { EnvironmentRegistry } from "@t3-connector/core/environments";
import { type FanOutDeadlines, realDeadlines } from "@t3-connector/core/fanout";
import {
  ACTION_IDS,
  type ActionId,
  type EnvironmentGrant,
  isNormalizedAbsolutePath,
} from "@t3-connector/write-engine/actions";
import {
  type CommandSupportCache,
  supportedActions,
  unsupportedActions,
} from "@t3-connector/write-engine/capabilities";
import type { EnvironmentLeftOut } from "../contract.js";

/** Each environment gets this long to connect and answer its shell (contract: 15 s). */
export const INVENTORY_TIMEOUT_MS = 15_000;

/** Catalogue actions an environment's T3 version cannot run: shown to the human, never granted. */
export interface UnsupportedActions {
  readonly environmentId: string;
  readonly serverVersion: string | null;
  readonly actions: readonly ActionId[];
}

/** A live thread of a granted project: what a client's proposal may name, and a title for the page. */
export interface InventoryThread {
  readonly id: string;
  readonly projectId: string;
  readonly title: string;
}

export type InventoryOutcome =
  | {
      readonly ok: true;
      readonly grant: EnvironmentGrant;
      readonly unsupported?: UnsupportedActions;
      /** The shell's non-deleted threads in the granted projects (absent: the inventory did not read them). */
      readonly threads?: readonly InventoryThread[];
    }
  | { readonly ok: false; readonly leftOut: EnvironmentLeftOut };

/** What the desk asks: the environments named (alias or environmentId), or all of them. */
export type Inventory = (
  wanted: readonly string[] | undefined,
  signal?: AbortSignal,
) => Promise<InventoryOutcome[]>;

interface ShellProject {
  readonly id: string;
  readonly title: string;
  readonly workspaceRoot?: string | undefined;
  readonly deletedAt?: string | null | undefined;
  readonly [key: string]: unknown;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The grant one environment's shell allows; projects without a usable absolute root are left out. */
export function grantFromShell(
  environment: { alias: string; environmentId: string },
  projects: readonly ShellProject[],
  actions: readonly ActionId[] = ACTION_IDS,
): EnvironmentGrant | null {
  const scoped = [];
  for (const project of projects) {
    if (project.deletedAt !== null && project.deletedAt !== undefined) continue;
    const cwd = typeof project.cwd === "string" ? project.cwd : undefined;
    const directory =
      project.workspaceRoot ?? cwd ?? (typeof project.directory === "string" ? project.directory : undefined);
    if (directory === undefined || !isNormalizedAbsolutePath(directory)) continue;
    scoped.push({ id: project.id, name: project.title, directory, workspaceRoots: [directory] });
  }
  if (scoped.length === 0) return null;
  scoped.sort((a, b) => compare(a.id, b.id));
  return {
    alias: environment.alias,
    environmentId: environment.environmentId,
    label: environment.alias,
    destination: `t3://${environment.environmentId}`,
    projects: scoped,
    actions: [...actions].sort(compare),
    readProjectIds: scoped.map((project) => project.id),
  };
}

/** The shell's threads that sit in a granted project and are not deleted. */
function liveThreads(
  threads: ReadonlyArray<{ id: string; projectId: string; title: string; deletedAt?: unknown }>,
  grant: EnvironmentGrant,
): InventoryThread[] {
  const projects = new Set(grant.projects.map((project) => project.id));
  return threads
    .filter((thread) => projects.has(thread.projectId) && (thread.deletedAt ?? null) === null)
    .map((thread) => ({ id: thread.id, projectId: thread.projectId, title: thread.title }));
}

const SAFE_VERSION = /^[A-Za-z0-9_.+-]{1,40}$/;

/**
 * Why an environment was left out, kept whole enough to act on: a server before protocol 2 says
 * so with its version (ADR 0069), a refused token says so; anything else is `environment_unavailable`.
 */
function leftOutCause(
  error: unknown,
  timedOut: boolean,
): Pick<EnvironmentLeftOut, "reason" | "serverVersion"> {
  if (timedOut) return { reason: "timeout" };
  if (isConnectorError(error, "protocol_unsupported")) {
    const version = error.details?.serverVersion;
    return {
      reason: "protocol_unsupported",
      ...(typeof version === "string" && SAFE_VERSION.test(version) ? { serverVersion: version } : {}),
    };
  }
  if (isConnectorError(error, "unauthorized") || isConnectorError(error, "scope_mismatch")) {
    return { reason: error.code };
  }
  return { reason: "environment_unavailable" };
}

/**
 * An `Inventory` over a registry built with `OPERATE_SCOPES`: all environments in parallel, each
 * within its own deadline. `deadlines` defaults to real timers; a test injects deadlines it expires
 * once a stalled environment holds the request, so a healthy one never races the clock.
 */
export function registryInventory(
  registry: EnvironmentRegistry,
  options: { timeoutMs?: number; commandSupport?: CommandSupportCache; deadlines?: FanOutDeadlines } = {},
): Inventory {
  const timeoutMs = options.timeoutMs ?? INVENTORY_TIMEOUT_MS;
  const deadlines = options.deadlines ?? realDeadlines;
  return async (wanted, signal) => {
    const handles =
      wanted === undefined
        ? registry.environments
        : registry.environments.filter(
            (handle) => wanted.includes(handle.alias) || wanted.includes(handle.environmentId),
          );
    return Promise.all(
      handles.map(async (handle): Promise<InventoryOutcome> => {
        const base = { alias: handle.alias, environmentId: handle.environmentId };
        const expired = new DOMException(`no inventory within ${timeoutMs} ms`, "TimeoutError");
        const deadline = deadlines.start(timeoutMs, expired, { alias: handle.alias });
        const timeout = deadline.signal;
        const both = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
        try {
          const connected = await handle.connect({ signal: both });
          const shell = await connected.http.getShell({ signal: both });
          const support = await options.commandSupport?.of(connected);
          const grant = grantFromShell(
            base,
            shell.projects,
            support ? supportedActions(support) : ACTION_IDS,
          );
          if (grant === null) return { ok: false, leftOut: { ...base, reason: "no_projects" } };
          const threads = liveThreads(shell.threads, grant);
          const missing = support ? unsupportedActions(support) : [];
          if (support === undefined || missing.length === 0) return { ok: true, grant, threads };
          return {
            ok: true,
            grant,
            threads,
            unsupported: {
              environmentId: base.environmentId,
              serverVersion: support.serverVersion,
              actions: missing,
            },
          };
        } catch (error) {
          return { ok: false, leftOut: { ...base, ...leftOutCause(error, timeout.aborted) } };
        } finally {
          deadline.clear();
        }
      }),
    );
  };
}
