import { ConnectorError, isConnectorError } from "../../errors.js";

/**
 * A T3 that does not serve a method answers `Die: "Unknown request tag: <tag>"` (fixture 61, and
 * 0.0.28 the same), which the exit decoder reports as a `protocol_error` defect. For a method an
 * older build may lack, that is the product's one "this T3 lacks it" error, `action_unsupported`,
 * naming the method in `details.missing` (as a refused command type names its type).
 */
export function lacksMethod(method: string, error: unknown): ConnectorError | undefined {
  if (!isConnectorError(error, "protocol_error")) return undefined;
  const defect = error.details?.defect;
  if (typeof defect !== "string" || !defect.startsWith("Unknown request tag")) return undefined;
  return new ConnectorError(
    "action_unsupported",
    `this T3 lacks ${method} (T3 Code 0.0.31 and later serve it); update T3 on that machine`,
    { details: { method, missing: method } },
  );
}
