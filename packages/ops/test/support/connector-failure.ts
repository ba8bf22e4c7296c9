import { type ConnectorError, isConnectorError } from "@t3-connector/core";

/** The ConnectorError a call fails with; a call that succeeds, or throws anything else, fails the test. */
export async function connectorFailure(promise: Promise<unknown>): Promise<ConnectorError> {
  try {
    await promise;
  } catch (error) {
    if (isConnectorError(error)) return error;
    throw error;
  }
  throw new Error("expected a failure");
}
