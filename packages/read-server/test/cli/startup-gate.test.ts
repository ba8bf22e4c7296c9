import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ConnectorError } from "@t3-connector/core";
import { loadReadConfig } from "@t3-connector/core/config";
import { EnvironmentRegistry, READ_SCOPES } from "@t3-connector/core/environments";
import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { type SimConfig, writeSimConfig } from "@t3-connector/test-support/sim-config";
import { toolInputError } from "@t3-connector/test-support/tool-input-error";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { startStartupGate } from "../../src/cli/startup-gate.js";
import { createProcessReadContext } from "../../src/read-context.js";
import { defineReadTool, READ_ONLY_ANNOTATIONS } from "../../src/read-tool.js";
import { createReadServer } from "../../src/server.js";
import { deferred } from "../framework/harness.js";

// `serve` answers `initialize` before the environments are verified; what keeps a mis-scoped
// token from serving anything is this gate: the background check, and every tool call waiting on it.

let sim: Simulator;
const configs: SimConfig[] = [];
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  sim = await startSimulator({
    environments: [
      { alias: "alpha", seed: "empty" },
      { alias: "beta", seed: "empty" },
    ],
  });
});

afterEach(async () => {
  for (const env of sim.environments) env.faults.clear();
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

afterAll(async () => {
  await sim.close();
  await Promise.all(configs.map((config) => config.remove()));
});

async function registryFor(options: Parameters<typeof writeSimConfig>[1] = {}) {
  const file = await writeSimConfig(sim, options);
  configs.push(file);
  const config = await loadReadConfig({ env: { T3_CONNECTOR_CONFIG: file.configPath } });
  const registry = new EnvironmentRegistry({
    environments: config.environments,
    requiredScopes: READ_SCOPES,
  });
  cleanups.push(() => registry.close());
  return registry;
}

describe("the start-up gate", () => {
  it("reports a refusal at once, without waiting for an environment that hangs", async () => {
    sim.environment("alpha").faults.set({ hang: true });
    const registry = await registryFor({ token: { beta: sim.environment("beta").operateToken } });
    // The default deadline: alpha would only be given up after 5 s, the refusal must not wait for it.
    const gate = startStartupGate(registry);
    const refusal = await gate.refused;
    expect(refusal.alias).toBe("beta");
    expect(refusal.error.code).toBe("scope_mismatch");
    await expect(gate.passed).rejects.toBe(refusal.error);
    // Closing aborts alpha's verification; the whole check then ends with beta refused.
    await registry.close();
    const check = await gate.done;
    expect(check.refusals.map((entry) => entry.alias)).toEqual(["beta"]);
  });

  it("passes when every environment verified or could only be warned about", async () => {
    sim.environment("beta").faults.set({ hang: true });
    const registry = await registryFor();
    const gate = startStartupGate(registry, 300);
    await expect(gate.passed).resolves.toBeUndefined();
    const check = await gate.done;
    expect(check.refusals).toEqual([]);
    expect(check.warnings).toEqual([expect.stringContaining('environment "beta" is not available now')]);
  });
});

describe("tool calls behind the gate", () => {
  const calls: string[] = [];
  const recordingTool = defineReadTool({
    name: "test_record",
    title: "Record (test)",
    description: "Records that its handler ran. Test-only.",
    inputSchema: z.strictObject({ text: z.string() }),
    outputSchema: z.object({ text: z.string() }),
    annotations: READ_ONLY_ANNOTATIONS,
    handler: async (_context, input) => {
      calls.push(input.text);
      return { text: input.text };
    },
  });

  async function connectGated(beforeCall: () => Promise<void>) {
    calls.length = 0;
    const context = createProcessReadContext({
      config: { path: "(test)", environments: [] },
      log: () => undefined,
    });
    const server = createReadServer([recordingTool], context, { beforeCall });
    const client = new Client({ name: "gate-test", version: "0.0.0" });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    await client.connect(clientTransport);
    cleanups.push(async () => {
      await client.close();
      await server.close();
    });
    return client;
  }

  it("answers tools/list at once but runs no handler until the gate opens", async () => {
    const gate = deferred();
    const client = await connectGated(() => gate.promise);
    const call = client.callTool({ name: "test_record", arguments: { text: "first" } });
    // tools/list is answered while the call waits: the session is up before the check ends.
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["test_record"]);
    expect(calls).toEqual([]);
    gate.resolve();
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ text: "first" });
    expect(calls).toEqual(["first"]);
  });

  it("answers a waiting call with the refusal and never runs its handler", async () => {
    const gate = deferred();
    const refusal = new ConnectorError("scope_mismatch", 'the token of environment "beta" has extra scopes');
    const client = await connectGated(() => gate.promise.then(() => Promise.reject(refusal)));
    const call = client.callTool({ name: "test_record", arguments: { text: "never" } });
    gate.resolve();
    const result = await call;
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: "text", text: refusal.toString() }]);
    expect(calls).toEqual([]);
  });

  it("with no environment configured, starts and answers every call with how to add one", async () => {
    const empty = new EnvironmentRegistry({ environments: [], requiredScopes: READ_SCOPES });
    const gate = startStartupGate(empty);
    const client = await connectGated(() => gate.passed);
    const result = await client.callTool({ name: "test_record", arguments: { text: "never" } });
    expect(result.isError).toBe(true);
    const [content] = result.content as Array<{ text: string }>;
    expect(content?.text).toMatch(/^no_environments: .*t3-connector environments add <alias> --url URL/);
    expect(calls).toEqual([]);
    // Not a refusal: the session stays up.
    const outcome = await Promise.race([gate.refused.then(() => "refused"), gate.done.then(() => "done")]);
    expect(outcome).toBe("done");
  });

  it("still answers an invalid input before waiting on the gate", async () => {
    const client = await connectGated(() => new Promise<void>(() => undefined));
    const error = await toolInputError(client, "test_record", { txt: "x" });
    expect(error.message).toMatch(/^test_record: /);
    expect(calls).toEqual([]);
  });
});
