import type { QueryIdentity, SignatureValue } from "@t3-connector/core/pagination";
import type { ReadContext } from "../read-context.js";

/**
 * What a paginated call was asked for: the tool, its filters, the environment filter and the
 * environments it set out to read. Resolving the environment here also refuses an unknown one
 * (`environment_unknown`, listing the aliases) before anything is read.
 */
export function listingIdentity(
  context: ReadContext,
  tool: string,
  filters: readonly SignatureValue[],
  environment: string | undefined,
): QueryIdentity {
  if (environment === undefined) {
    return {
      tool,
      filters,
      environmentFilter: null,
      selectedEnvironmentIds: context.registry.environments.map((handle) => handle.environmentId),
    };
  }
  const handle = context.registry.resolve(environment);
  return {
    tool,
    filters,
    environmentFilter: handle.environmentId,
    selectedEnvironmentIds: [handle.environmentId],
  };
}
