/**
 * The relay contract is one module for both sides: what the gate puts on the wire for a refusal is
 * exactly what the bridge rebuilds for its client, detail key for detail key, and a key outside the
 * contract's list crosses neither way.
 */

import { ConnectorError } from "@t3-connector/core";
import { relayErrorToConnectorError } from "@t3-connector/write-bridge";
import {
  parseRelayRequest,
  RELAY_DETAIL_KEYS,
  type RelayRequestInput,
} from "@t3-connector/write-engine/relay-contract";
import { describe, expect, it } from "vitest";
import { relayErrorOf } from "../../src/relay/errors.js";

describe("the relay contract", () => {
  it("carries every listed detail key from the gate's refusal to the bridge's error, and no other", () => {
    const listed = Object.fromEntries(RELAY_DETAIL_KEYS.map((key) => [key, `value of ${key}`]));
    const refusal = new ConnectorError("reconciliation_required", "settle it later", {
      details: { ...listed, tokenPath: "/home/me/.t3/token", stack: "at somewhere" },
    });
    const wire = JSON.parse(JSON.stringify(relayErrorOf(refusal)));
    const rebuilt = relayErrorToConnectorError(409, wire);
    expect(rebuilt.code).toBe("reconciliation_required");
    expect(rebuilt.details).toEqual({ gateCode: "reconciliation_required", ...listed });
  });

  it("parses on the gate exactly the bodies the bridge's types allow", () => {
    const dispatch: RelayRequestInput = {
      op: "dispatch",
      leaseId: "lease-1",
      environment: "laptop",
      operationId: "op-1",
      action: "thread.pin",
      input: { threadId: "t-1" },
    };
    expect(parseRelayRequest(dispatch)).toMatchObject({ op: "dispatch", action: "thread.pin" });
    expect(parseRelayRequest({ ...dispatch, extra: true })).toBeNull();
    expect(parseRelayRequest({ op: "no_such_op" })).toBeNull();
  });
});
