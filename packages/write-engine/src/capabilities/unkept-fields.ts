/**
 * Input fields T3 may drop without a word: its command schemas ignore excess keys, so a field a
 * server's schema lacks is accepted and lost, and the write would report an effect that never
 * happened. Such a field is refused (`action_unsupported`, nothing recorded or sent) unless the
 * environment's T3 version is known to keep it (ADR 0069). `thread.pull-request.watch`'s `paused`:
 * the newest upstream schema has none (orchestrationV2.ts, index id 70102248590), and no version
 * is verified to keep it, so the list of versions that keep it is empty.
 */
import { ConnectorError } from "@t3-connector/core";
import type { ConnectedEnvironment } from "@t3-connector/core/environments";
import type { ActionId } from "../actions/index.js";

interface UnkeptField {
  readonly field: string;
  /** T3 versions verified to keep the field (read back after a write). */
  readonly keptBy: ReadonlySet<string>;
  readonly instead: string;
}

const UNKEPT: Partial<Record<ActionId, UnkeptField>> = {
  "thread.pull-request.watch": {
    field: "paused",
    keptBy: new Set<string>(),
    instead: "watch or stop watching without paused (watching: false stops it)",
  },
};

/** Throws `action_unsupported` when `input` sets a field this environment's T3 may silently drop. */
export function refuseUnkeptField(connection: ConnectedEnvironment, action: ActionId, input: unknown): void {
  const rule = UNKEPT[action];
  if (rule === undefined || typeof input !== "object" || input === null) return;
  if ((input as Record<string, unknown>)[rule.field] === undefined) return;
  if (connection.version !== null && rule.keptBy.has(connection.version)) return;
  const version = connection.version === null ? "this T3 (version unknown)" : `T3 ${connection.version}`;
  throw new ConnectorError(
    "action_unsupported",
    `${action} with ${rule.field}: ${version} in environment ${connection.alias} is not known to keep ` +
      `${rule.field} (its schema may ignore it, and the effect could not be read back); nothing was sent. ` +
      `Instead, ${rule.instead}`,
    {
      details: {
        environment: connection.alias,
        serverVersion: connection.version,
        action,
        field: rule.field,
        state: "not_recorded",
      },
    },
  );
}
