import { isConnectorError } from "@t3-connector/core";

/** `{code, message}` of any failure; anything that is not a ConnectorError is `internal`. */
export function errorFields(error: unknown): { code: string; message: string } {
  if (isConnectorError(error)) return { code: error.code, message: error.message };
  return { code: "internal", message: error instanceof Error ? error.message : "unexpected failure" };
}
