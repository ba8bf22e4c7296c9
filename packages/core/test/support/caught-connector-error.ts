import { expect } from "vitest";
import { ConnectorError } from "../../src/errors.js";

/** The ConnectorError a call rejects with; a call that resolves, or throws anything else, fails the test. */
export async function caughtConnectorError(promise: Promise<unknown>): Promise<ConnectorError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectorError);
  return error as ConnectorError;
}
