import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { parseReadConfig, writeTokenFile } from "@t3-connector/core/config";
import type { FanOutDeadlines } from "@t3-connector/core/fanout";
import { type Simulator, type SimulatorOptions, startSimulator } from "@t3-connector/t3-sim";
import {
  createProcessReadContext,
  type ReadContext,
  type ReadLimits,
} from "../../packages/read-server/src/read-context.js";
import type { ReadToolDefinition } from "../../packages/read-server/src/read-tool.js";
import { createReadServer } from "../../packages/read-server/src/server.js";

export interface SimReadSetup {
  sim: Simulator;
  context: ReadContext;
  client: Client;
  /** Operator log lines the server wrote. */
  logs: string[];
  /** Calls a tool and returns its structured content (throws on a tool error, with its text). */
  call(name: string, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Calls a tool expecting a tool error; returns its text. */
  callError(name: string, args?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export interface SimReadOptions {
  /** Options of a simulator to start, or one already running (then the caller closes it). */
  simulator: SimulatorOptions | { running: Simulator };
  definitions: readonly ReadToolDefinition[];
  /** Per alias: the projects the read config allows (default: every project of the environment). */
  allowedProjects?: Record<string, string[]>;
  /** Per alias: the folders whose projects the read config shows too (`allowedProjectRoots`, ADR 0074). */
  allowedProjectRoots?: Record<string, string[]>;
  /** Per alias: which token the config points at (default the read token). */
  token?: Record<string, "read" | "operate" | string>;
  limits?: Partial<ReadLimits>;
  /** Where the read deadlines come from (e.g. `ManualDeadlines`); default real timers. */
  deadlines?: FanOutDeadlines;
  /** Environments beyond the simulator's (e.g. a protocol-1 server), configured after them. */
  otherServers?: ReadonlyArray<{ alias: string; environmentId: string; url: string }>;
}

/**
 * Simulated environments, a real read config with real token files (mode 600 in a 700
 * directory) pointing at them, and the read server with `definitions` joined to an SDK client by
 * the SDK's in-memory transport. Everything the tools do goes over real sockets to the simulator.
 */
export async function startSimRead(options: SimReadOptions): Promise<SimReadSetup> {
  const given = "running" in options.simulator ? options.simulator.running : undefined;
  const sim = given ?? (await startSimulator(options.simulator as SimulatorOptions));
  const dir = await mkdtemp(path.join(os.tmpdir(), "t3-read-test-"));
  const environments: Record<string, unknown> = {};
  for (const env of sim.environments) {
    const choice = options.token?.[env.alias] ?? "read";
    const token = choice === "read" ? env.readToken : choice === "operate" ? env.operateToken : choice;
    const tokenFile = path.join(dir, "tokens", `${env.alias}.token`);
    await writeTokenFile(tokenFile, token);
    const projects = env.model.httpProjects();
    const projectIds =
      projects.kind === "ok"
        ? ((projects.body as { projects?: Array<{ id: string }> }).projects ?? []).map((p) => p.id)
        : [];
    environments[env.alias] = {
      environmentId: env.environmentId,
      url: env.url,
      tokenFile,
      allowedProjects:
        options.allowedProjects?.[env.alias] ?? (projectIds.length > 0 ? projectIds : ["none"]),
      ...(options.allowedProjectRoots?.[env.alias] === undefined
        ? {}
        : { allowedProjectRoots: options.allowedProjectRoots[env.alias] }),
    };
  }
  for (const other of options.otherServers ?? []) {
    const tokenFile = path.join(dir, "tokens", `${other.alias}.token`);
    await writeTokenFile(tokenFile, "read-token-of-another-server");
    environments[other.alias] = {
      environmentId: other.environmentId,
      url: other.url,
      tokenFile,
      allowedProjects: ["none"],
    };
  }
  const config = parseReadConfig({ environments }, { path: path.join(dir, "config.json") });
  const logs: string[] = [];
  const context = createProcessReadContext({
    config,
    log: (line) => logs.push(line),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.deadlines ? { deadlines: options.deadlines } : {}),
  });
  const server = createReadServer(options.definitions, context);
  const client = new Client({ name: "read-test", version: "0.0.0" });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  await client.connect(clientTransport);

  const callRaw = (name: string, args: Record<string, unknown> = {}) =>
    client.callTool({ name, arguments: args });
  return {
    sim,
    context,
    client,
    logs,
    async call(name, args) {
      const result = await callRaw(name, args);
      const text = (result.content as Array<{ type: string; text?: string }>)[0]?.text ?? "";
      if (result.isError) throw new Error(`tool error from ${name}: ${text}`);
      return result.structuredContent as Record<string, unknown>;
    },
    async callError(name, args) {
      const result = await callRaw(name, args);
      const text = (result.content as Array<{ type: string; text?: string }>)[0]?.text ?? "";
      if (!result.isError) throw new Error(`expected a tool error from ${name}, got: ${text.slice(0, 300)}`);
      return text;
    },
    async close() {
      await client.close();
      await server.close();
      context.registry.close();
      if (given === undefined) await sim.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
