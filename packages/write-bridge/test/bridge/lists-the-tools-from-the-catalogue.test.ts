import { ACTIONS } from "@t3-connector/write-engine/actions";
import { describe, expect, it } from "vitest";
import { writeToolAnnotations, writeToolRow } from "../../src/tools/write-tool-table.js";
import { type BridgeSession, useBridgeOverFakeGate } from "../support/bridge-client.js";
import type { FakeGate } from "../support/fake-gate.js";

let gate: FakeGate;
let bridge: BridgeSession;

useBridgeOverFakeGate((started, session) => {
  gate = started;
  bridge = session;
});

describe("tools/list", () => {
  it("has one write tool per catalogue action, then the conditional send and the threads batch, with literal names and hints", async () => {
    const { tools } = await bridge.client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const writes = tools.filter((tool) => tool.name.startsWith("t3_escrever_"));
    expect(writes.map((tool) => tool.name)).toEqual([
      ...ACTIONS.map((entry) => writeToolRow(entry.action).name),
      "t3_escrever_thread_conditional_send",
      "t3_escrever_threads_batch",
    ]);
    expect(writes).toHaveLength(49);
    expect(tools).toHaveLength(57);
    for (const entry of ACTIONS) {
      const row = writeToolRow(entry.action);
      const tool = byName.get(row.name);
      // The page, the operator CLI and the tool agree on the words: label as title, description first.
      expect(tool?.title).toBe(entry.label);
      expect(tool?.description?.startsWith(entry.description)).toBe(true);
      expect(tool?.annotations).toMatchObject({
        readOnlyHint: false,
        destructiveHint: writeToolAnnotations(row).destructiveHint,
        idempotentHint: true,
      });
      expect(tool?.inputSchema.required).toEqual(["leaseId", "environment", "operationId", "input"]);
      expect(tool?.inputSchema.additionalProperties).toBe(false);
    }
    expect(byName.get("t3_escrever_thread_delete")?.annotations?.destructiveHint).toBe(true);
    expect(byName.get("t3_escrever_thread_pin")?.annotations?.destructiveHint).toBe(false);
  });

  it("adds the approval, the preflight, the five leased reads and reconciliation", async () => {
    const { tools } = await bridge.client.listTools();
    const others = tools.filter((tool) => !tool.name.startsWith("t3_escrever_")).map((tool) => tool.name);
    expect(others).toEqual([
      "t3_pedir_aprovacao",
      "t3_preflight",
      "t3_projetos",
      "t3_threads",
      "t3_atencao",
      "t3_thread",
      "t3_mensagens",
      "t3_reconciliar_escrita",
    ]);
    // The preflight needs no lease (ADR 0075): it takes the write's action and input.
    const preflight = tools.find((tool) => tool.name === "t3_preflight");
    expect(preflight?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(preflight?.inputSchema.required).toEqual(["action", "input"]);
    for (const tool of tools.filter((candidate) => others.slice(2).includes(candidate.name))) {
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      expect(tool.inputSchema.additionalProperties).toBe(false);
      // The leased reads take the read tools' inputs plus leaseId (environment optional there too,
      // refused without it at call time); the reconciliation names its environment.
      expect(tool.inputSchema.required).toEqual(
        expect.arrayContaining(
          tool.name === "t3_reconciliar_escrita" ? ["leaseId", "environment"] : ["leaseId"],
        ),
      );
    }
    expect(gate.requests).toHaveLength(0);
  });
});
