/**
 * Deterministic ids. Every id sent to T3 comes from the operation key,
 * so a repeat of the same operation carries the same `commandId` and T3's own command receipts
 * dedupe it even if the journal were lost. Each id kind has its own label, so no two ids of one
 * operation collide; steps of a composite write have their own operationIds and thus keys.
 */
import { createHash } from "node:crypto";
import type { DerivedIds, IdKind } from "./types.js";

const ID_LABEL_PREFIX = "t3-connector/write-id/v1";

function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** The first 128 bits of a hex digest as a UUID with version 8 (custom) and the RFC variant. */
export function uuidFromHex(hex: string): string {
  if (!/^[0-9a-f]{32,}$/.test(hex)) throw new TypeError("uuidFromHex needs at least 32 lowercase hex digits");
  const variant = ((Number.parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return [
    hex.slice(0, 8),
    hex.slice(8, 12),
    `8${hex.slice(13, 16)}`,
    `${variant}${hex.slice(17, 20)}`,
    hex.slice(20, 32),
  ].join("-");
}

export interface OperationKeyParts {
  readonly environmentId: string;
  /** `t3://<environmentId>`. */
  readonly destination: string;
  /** The stable caller identity (channel), never a boot id: dedupe must survive restarts. */
  readonly caller: string;
  readonly operationId: string;
}

/** The journal key of one operation: sha256 hex of `["v2", environmentId, destination, caller, operationId]`. */
export function deriveOperationKey(parts: OperationKeyParts): string {
  return sha256Hex(
    JSON.stringify(["v2", parts.environmentId, parts.destination, parts.caller, parts.operationId]),
  );
}

/** The manifest key of one conditional send. */
export function deriveConditionalSendKey(
  parts: Omit<OperationKeyParts, "operationId"> & { clientRequestId: string },
) {
  return sha256Hex(
    JSON.stringify([
      "conditional-send-v1",
      parts.environmentId,
      parts.destination,
      parts.caller,
      parts.clientRequestId,
    ]),
  );
}

/** Hash of `[action, parsedInput]`: the same key with another input is an operation conflict. */
export function operationInputHash(action: string, parsedInput: unknown): string {
  return sha256Hex(JSON.stringify([action, parsedInput]));
}

const KIND_LABEL: Readonly<Record<IdKind, string>> = {
  commandId: "command",
  messageId: "message",
  threadId: "thread",
  targetThreadId: "target-thread",
  projectId: "project",
};

/** One id of one kind for one operation. */
export function deriveId(operationKey: string, action: string, kind: IdKind): string {
  return uuidFromHex(sha256Hex(`${ID_LABEL_PREFIX}\n${KIND_LABEL[kind]}\n${action}\n${operationKey}`));
}

/** Builds the id set from the kinds an action declares; used by `deriveIds` in catalogue.ts. */
export function deriveIdSet(
  operationKey: string,
  action: string,
  extraKinds: readonly Exclude<IdKind, "commandId">[],
  clientRequestId?: string,
): DerivedIds {
  if (operationKey.length === 0) throw new TypeError("operationKey must not be empty");
  const ids: { -readonly [K in keyof DerivedIds]: DerivedIds[K] } = {
    commandId: deriveId(operationKey, action, "commandId"),
  };
  for (const kind of extraKinds) ids[kind] = deriveId(operationKey, action, kind);
  if (clientRequestId !== undefined) ids.clientRequestId = clientRequestId;
  return ids;
}
