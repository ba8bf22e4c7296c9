import { describe, expect, it } from "vitest";
import {
  ACTIONS,
  deriveConditionalSendKey,
  deriveIds,
  deriveOperationKey,
  operationInputHash,
  stepOperationId,
  uuidFromHex,
} from "../../src/actions/index.js";

const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const PARTS = {
  environmentId: "8a83a2ed-157d-4eaa-96d9-b12040a490d5",
  destination: "t3://8a83a2ed-157d-4eaa-96d9-b12040a490d5",
  caller: "channel:my-org|securetunnel:tunnel_abc",
  operationId: "op-1",
};

describe("operation keys", () => {
  it("hashes environment, destination, caller and operationId into a stable hex key", () => {
    const key = deriveOperationKey(PARTS);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(deriveOperationKey({ ...PARTS })).toBe(key);
  });

  it("changes when any part changes", () => {
    const key = deriveOperationKey(PARTS);
    for (const part of ["environmentId", "destination", "caller", "operationId"] as const) {
      expect(deriveOperationKey({ ...PARTS, [part]: `${PARTS[part]}x` })).not.toBe(key);
    }
  });

  it("keeps the conditional-send manifest key apart from the operation key of the same id", () => {
    const manifest = deriveConditionalSendKey({ ...PARTS, clientRequestId: PARTS.operationId });
    expect(manifest).toMatch(/^[0-9a-f]{64}$/);
    expect(manifest).not.toBe(deriveOperationKey(PARTS));
  });

  it("hashes action and parsed input for conflict detection", () => {
    const hash = operationInputHash("thread.pin", { threadId: "t" });
    expect(hash).toBe(operationInputHash("thread.pin", { threadId: "t" }));
    expect(hash).not.toBe(operationInputHash("thread.unpin", { threadId: "t" }));
    expect(hash).not.toBe(operationInputHash("thread.pin", { threadId: "u" }));
  });
});

describe("deriveIds", () => {
  const key = deriveOperationKey(PARTS);

  it("is deterministic and UUID-shaped for every action", () => {
    for (const { action } of ACTIONS) {
      const ids = deriveIds(key, action);
      expect(deriveIds(key, action)).toEqual(ids);
      expect(ids.commandId).toMatch(UUID_V8);
    }
  });

  it("derives the extra ids each action sends, and only those", () => {
    expect(Object.keys(deriveIds(key, "thread.send")).sort()).toEqual(["commandId", "messageId"]);
    expect(Object.keys(deriveIds(key, "thread.launch")).sort()).toEqual([
      "commandId",
      "messageId",
      "threadId",
    ]);
    expect(Object.keys(deriveIds(key, "thread.fork")).sort()).toEqual(["commandId", "targetThreadId"]);
    expect(Object.keys(deriveIds(key, "thread.pin"))).toEqual(["commandId"]);
  });

  it("gives each id kind of one operation a distinct value", () => {
    const launch = deriveIds(key, "thread.launch");
    const values = [launch.commandId, launch.threadId, launch.messageId];
    expect(new Set(values).size).toBe(3);
    for (const value of values) expect(value).toMatch(UUID_V8);
  });

  it("differs across operation keys and across the steps of a conditional send", () => {
    const other = deriveOperationKey({ ...PARTS, operationId: "op-2" });
    expect(deriveIds(other, "thread.send").commandId).not.toBe(deriveIds(key, "thread.send").commandId);
    const modelKey = deriveOperationKey({
      ...PARTS,
      operationId: stepOperationId("op-1", "model-selection"),
    });
    const sendKey = deriveOperationKey({ ...PARTS, operationId: stepOperationId("op-1", "send") });
    const model = deriveIds(modelKey, "thread.model-selection.set");
    const send = deriveIds(sendKey, "thread.send");
    const all = [model.commandId, send.commandId, send.messageId, deriveIds(key, "thread.send").commandId];
    expect(new Set(all).size).toBe(4);
  });

  it("gives different actions under one key different command ids", () => {
    const commandIds = ACTIONS.map(({ action }) => deriveIds(key, action).commandId);
    expect(new Set(commandIds).size).toBe(ACTIONS.length);
  });

  it("keeps clientRequestId only for thread.send", () => {
    expect(deriveIds(key, "thread.send", { clientRequestId: "op-1" }).clientRequestId).toBe("op-1");
    expect(deriveIds(key, "thread.pin", { clientRequestId: "op-1" }).clientRequestId).toBeUndefined();
  });

  it("refuses an empty key and formats a known digest exactly", () => {
    expect(() => deriveIds("", "thread.pin")).toThrow();
    expect(uuidFromHex("0123456789abcdef0123456789abcdef")).toBe("01234567-89ab-8def-8123-456789abcdef");
    expect(uuidFromHex("ffffffffffffffffffffffffffffffff")).toBe("ffffffff-ffff-8fff-bfff-ffffffffffff");
  });
});
