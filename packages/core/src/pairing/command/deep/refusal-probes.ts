/**
 * The shape of one refused command, from a command the server must refuse before acting: a
 * `thread.settle` without its `threadId`, which no schema of any T3 decodes, so nothing can be
 * written whatever the token may do (ADR 0069). Never a decodable command.
 */
import { randomUUID } from "node:crypto";
import { isConnectorError } from "../../../errors.js";
import { assumption, failureSeen, type ProbeTarget } from "./probe-target.js";
import type { Assumption } from "./report.js";

const refusal = assumption("refusal");

export const SCHEMA_INVALID_COMMAND_TYPE = "thread.settle";

export async function probeRefusal(target: ProbeTarget): Promise<Assumption[]> {
  const expected =
    "a command that does not decode is refused before acting, as a decode defect the connector maps to a typed error";
  let decoded: Assumption;
  try {
    const client = await target.connected.rpc();
    await client.call(
      "orchestration.dispatchCommand",
      { type: SCHEMA_INVALID_COMMAND_TYPE, commandId: randomUUID() },
      { timeoutMs: target.timeoutMs },
    );
    decoded = refusal(
      "refusal.schema-invalid",
      expected,
      "differs",
      "the server ACCEPTED a command without its threadId",
    );
  } catch (error) {
    const defect = isConnectorError(error) ? String(error.details?.defect ?? "") : "";
    if (isConnectorError(error, "protocol_error") && defect !== "") {
      const names = /threadId/.test(defect) ? " naming the missing threadId" : "";
      decoded = refusal("refusal.schema-invalid", expected, "held", `refused with a decode defect${names}`);
    } else if (isConnectorError(error) && error.t3?.tag !== undefined) {
      decoded = refusal(
        "refusal.schema-invalid",
        expected,
        "held",
        `refused as ${error.t3.tag} before decoding`,
      );
    } else {
      decoded = refusal("refusal.schema-invalid", expected, "differs", failureSeen(error));
    }
  }
  const cause = refusal(
    "refusal.cause",
    "a typed refusal carries its cause (the Orchestrator error's name), else T3's own message",
    "unknown",
    "not observable read-only: only a decodable command shows it, and this probe sends none",
  );
  return [decoded, cause];
}
