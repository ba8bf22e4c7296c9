import { ConnectorError, sha256Hex } from "@t3-connector/core";

/** Everything that scopes an operationId. The boot id is deliberately absent, so keys survive restarts. */
export interface OperationIdentity {
  environmentId: string;
  /** `t3://<environmentId>` for T3 environments. */
  destination: string;
  /** The stable caller channel, e.g. `<subject>|<binding>`. */
  caller: string;
  operationId: string;
}

/**
 * The journal key: SHA-256 hex of `["v2", environmentId, destination, caller, operationId]` as
 * JSON. The same operationId in another environment, or from another caller, is a different
 * operation. Every id sent to T3 is derived from this key, so T3's own receipts dedupe a repeat
 * even if the journal were lost.
 */
export function journalKey(identity: OperationIdentity): string {
  const parts = [identity.environmentId, identity.destination, identity.caller, identity.operationId];
  const names = ["environmentId", "destination", "caller", "operationId"];
  parts.forEach((part, index) => {
    if (typeof part !== "string" || part.length === 0) {
      throw new ConnectorError("invalid_input", `${names[index]} must be a non-empty string`);
    }
  });
  return sha256Hex(JSON.stringify(["v2", ...parts]));
}

const KEY_PATTERN = /^[0-9a-f]{64}$/;

export function isJournalKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}
