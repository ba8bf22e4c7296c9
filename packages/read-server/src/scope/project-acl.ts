/**
 * The projects an environment shows in a read: core's read ACL (`readProjectAcl`, ADR 0074) over
 * the read config's entry, ids and folders. One per read, so each read walks the folders again.
 */
import { type ProjectAcl, readProjectAcl } from "@t3-connector/core/config";
import type { ReadContext } from "../read-context.js";

/** The ACL of one environment of `context` (an unknown environment shows nothing). */
export function projectAclOf(context: ReadContext, environmentId: string): ProjectAcl {
  return readProjectAcl(context.config.environments.find((env) => env.environmentId === environmentId));
}
