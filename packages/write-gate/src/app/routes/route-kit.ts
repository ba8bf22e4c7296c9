/**
 * @module What every page sub-app shares: the parts of the human side it reads, the body validator
 * each route names, and the audit code of a failure.
 */

import { ConnectorError } from "@t3-connector/core";
import type { Context, MiddlewareHandler } from "hono";
import type { z } from "zod";
import type { GateApprovalDesk } from "../../approval/index.js";
import type { AuditEvent } from "../../audit/index.js";
import type { GateEvents } from "../../events/gate-events.js";
import type { GateLeaseKeeper } from "../../lease/lease-keeper.js";
import type { Enrollment, Passkeys } from "../../passkeys/index.js";
import { readJsonBody } from "../../security/index.js";
import type { StartupWarnings } from "../startup-warnings.js";
import type { RowNames } from "../write-rows.js";

/** Page routes take at most 64 KiB; the relay's limit is the relay contract's. */
export const PAGE_BODY_LIMIT = 65_536;

/** The human side's parts, built once by `createGateApp` and handed to each sub-app. */
export interface GateParts {
  readonly keeper: GateLeaseKeeper;
  readonly desk: GateApprovalDesk;
  readonly passkeys: Passkeys;
  readonly enrollment: Enrollment;
  readonly events: GateEvents;
  readonly names: RowNames;
  /** Appends to the audit log when the gate has one; a failed append never fails the route. */
  readonly audit: (event: AuditEvent) => void;
  readonly log: (line: string) => void;
  /** The environments' start-up findings the page shows as a banner (absent in some tests). */
  readonly startupWarnings: StartupWarnings | undefined;
}

/** A route's parsed body, set by `jsonBody`. */
export interface BodyEnv<T> {
  Variables: { body: T };
}

/**
 * The route's validator: reads the body (capped at PAGE_BODY_LIMIT) and checks it against the
 * route's strict schema before the handler runs; the handler reads it with `c.get("body")`.
 */
export function jsonBody<S extends z.ZodType>(schema: S): MiddlewareHandler<BodyEnv<z.output<S>>> {
  return async (c, next) => {
    c.set("body", await parsedBody(c, schema));
    await next();
  };
}

/** The same reading and check, for a route that must pass its own checks before the body is read. */
export async function parsedBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  const result = schema.safeParse(await readJsonBody(c, PAGE_BODY_LIMIT));
  if (!result.success)
    throw new ConnectorError("body_invalid", "the request body is not the JSON this route takes");
  return result.data;
}

/** The stable code of a failure, for the audit log (never its message). */
export function codeOf(error: unknown): string {
  if (error instanceof ConnectorError) return error.code;
  return "verification_failed";
}
