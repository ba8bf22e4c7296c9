/**
 * Which catalogue actions one T3 server can run. Servers of many ages are in use: the first
 * Orchestrator V2 builds decode 37 command types, protocol 2 adds more. An
 * action is offered, granted and sent only where the server decodes its command type; the
 * others are named as not supported by that server's version (ADR 0009).
 */

import { ConnectorError } from "@t3-connector/core";
import { ACTIONS, type ActionId, getAction } from "../actions/index.js";

export interface CommandSupport {
  readonly environmentId: string;
  /** The descriptor's `serverVersion`, null when the server gives none. */
  readonly serverVersion: string | null;
  /** The command types the server decodes; "all" when nothing says otherwise. */
  readonly acceptedTypes: ReadonlySet<string> | "all";
  /**
   * How it was learned: the server's own list (a harmless probe, or a refusal that listed it),
   * or the protocol alone (a protocol-2 server whose answer to the probe lists nothing).
   */
  readonly source: "server_list" | "protocol";
}

export function supportsAction(support: CommandSupport, action: ActionId): boolean {
  const { commandType, payloadKind } = getAction(action);
  // thread.launch and project admin are RPCs of their own (orchestration.launchThread,
  // projects.mutate), outside the command union the probe learns (fixtures 79, 100).
  return (
    payloadKind !== "dispatch" ||
    commandType === null ||
    support.acceptedTypes === "all" ||
    support.acceptedTypes.has(commandType)
  );
}

export function supportedActions(support: CommandSupport): ActionId[] {
  return ACTIONS.map((entry) => entry.action).filter((action) => supportsAction(support, action));
}

export function unsupportedActions(support: CommandSupport): ActionId[] {
  return ACTIONS.map((entry) => entry.action).filter((action) => !supportsAction(support, action));
}

/** "T3 0.0.31" or "this T3 (version unknown)": how messages and the page name a server's version. */
export function describeServerVersion(serverVersion: string | null): string {
  return serverVersion === null ? "this T3 (version unknown)" : `T3 ${serverVersion}`;
}

/** The typed refusal for an action the environment's T3 cannot run; nothing was journaled or sent. */
export function actionUnsupportedError(
  support: CommandSupport,
  alias: string,
  action: ActionId,
): ConnectorError {
  const { commandType } = getAction(action);
  return new ConnectorError(
    "action_unsupported",
    `${action} is not supported by ${describeServerVersion(support.serverVersion)} in environment ${alias}` +
      ` (it does not accept the command ${commandType}); nothing was sent`,
    {
      details: {
        environment: alias,
        environmentId: support.environmentId,
        serverVersion: support.serverVersion,
        action,
        commandType,
        state: "not_recorded",
      },
    },
  );
}
