/**
 * A gate over a real simulator: operate tokens in private token files, a registry built with
 * OPERATE_SCOPES, the live inventory the gate uses, and (optionally) the app served by
 * @hono/node-server on 127.0.0.1 at a port chosen by the OS.
 */

import { mkdir, mkdtemp, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import type { Clock } from "@t3-connector/core";
import { type EnvironmentConfig, writeTokenFile } from "@t3-connector/core/config";
import { EnvironmentRegistry, OPERATE_SCOPES } from "@t3-connector/core/environments";
import type { StoredCredential } from "@t3-connector/core/passkeys";
import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { CommandSupportCache } from "@t3-connector/write-engine/capabilities";
import { openWriteEngine } from "@t3-connector/write-engine/engine";
import {
  createGateApp,
  type GateApp,
  type StartupWarnings,
} from "../../packages/write-gate/src/app/index.js";
import {
  registryInventory,
  registryProjectWriteFacts,
} from "../../packages/write-gate/src/approval/index.js";
import { type AuditLog, openAuditLog } from "../../packages/write-gate/src/audit/index.js";
import { CREDENTIALS_FILE, saveCredentials } from "../../packages/write-gate/src/passkeys/index.js";

export const ENROLLMENT_CODE = "WXYZ-2345-6789-ABCD";

/** Real time plus an offset a test may move forward (both readings move together). */
export class OffsetClock implements Clock {
  offsetMs = 0;
  now(): number {
    return Date.now() + this.offsetMs;
  }
  monotonic(): number {
    return performance.now() + this.offsetMs;
  }
}

export interface ProjectSeed {
  id: string;
  title: string;
  workspaceRoot: string;
}

export interface ThreadSeed {
  id: string;
  projectId: string;
  title: string;
}

export interface SimGate extends GateApp {
  sim: Simulator;
  registry: EnvironmentRegistry;
  clock: OffsetClock;
  stateDir: string;
  port: number;
  origin: string;
  /** Every line the gate logged. */
  logs: string[];
  /** The gate's audit log (`<stateDir>/audit.log`). */
  audit: AuditLog;
  close(): Promise<void>;
}

export async function startSimGate(options: {
  /** `compat` plays an older T3 build (the simulator's profile). */
  environments: { alias: string; projects: ProjectSeed[]; threads?: ThreadSeed[]; compat?: "0.0.31" }[];
  serve?: boolean;
  /** Passkeys already on disk when the gate starts. */
  credentials?: readonly StoredCredential[];
  /** The event stream's ping interval (default 15 s). */
  eventPingIntervalMs?: number;
  /** The start-up findings the page shows (the real gate fills them from its environment check). */
  startupWarnings?: StartupWarnings;
  /** Opens a write engine in the state directory and serves the person's inbox through it. */
  inbox?: boolean;
  /** Approval from afar: the public origin and the OAuth state directory its passkeys are read from. */
  remoteApproval?: { origin: string; oauthStateDir: string; relayCapability?: string };
  /** Approval from afar at the gate's own origin (a browser test of `/approve` without a proxy). */
  remoteApprovalAtOwnOrigin?: { oauthStateDir: string };
  /** Environments beyond the simulator's (e.g. a protocol-1 server), configured after them. */
  otherServers?: ReadonlyArray<{ alias: string; environmentId: string; url: string }>;
}): Promise<SimGate> {
  const sim = await startSimulator({
    environments: options.environments.map((env) => ({
      alias: env.alias,
      seed: "empty" as const,
      ...(env.compat === undefined ? {} : { compat: env.compat }),
    })),
  });
  const root = await mkdtemp(join(tmpdir(), "t3c-gate-sim-"));
  const stateDir = join(root, "state");
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  const configs: EnvironmentConfig[] = [];
  for (const spec of options.environments) {
    const env = sim.environment(spec.alias);
    for (const project of spec.projects) env.model.addProject(project);
    for (const thread of spec.threads ?? []) env.model.addThread(thread);
    const tokenFile = join(root, "tokens", `${spec.alias}-operate`);
    await writeTokenFile(tokenFile, env.operateToken);
    configs.push({
      alias: env.alias,
      environmentId: env.environmentId,
      transport: { kind: "url", url: env.url },
      tokenFile,
    });
  }
  for (const other of options.otherServers ?? []) {
    const tokenFile = join(root, "tokens", `${other.alias}-operate`);
    await writeTokenFile(tokenFile, "operate-token-of-another-server");
    configs.push({
      alias: other.alias,
      environmentId: other.environmentId,
      transport: { kind: "url", url: other.url },
      tokenFile,
    });
  }
  const registry = new EnvironmentRegistry({ environments: configs, requiredScopes: OPERATE_SCOPES });
  const clock = new OffsetClock();
  const logs: string[] = [];
  if (options.credentials !== undefined) {
    await saveCredentials(join(stateDir, CREDENTIALS_FILE), options.credentials);
  }
  const audit = await openAuditLog({ stateDir, clock });
  const engine =
    options.inbox === true
      ? await openWriteEngine({ stateDir, registry, channel: "sim-gate", clock })
      : undefined;

  // Listen first (port 0), then build the app for that exact port: no free-port race.
  let handler: ((request: Request, env: unknown) => Response | Promise<Response>) | undefined;
  let server: ReturnType<typeof serve> | undefined;
  let port = 7433;
  if (options.serve === true) {
    server = serve({
      fetch: (request, env) =>
        handler === undefined ? new Response(null, { status: 503 }) : handler(request, env),
      hostname: "127.0.0.1",
      port: 0,
    });
    await new Promise<void>((resolve) => server?.once("listening", () => resolve()));
    port = (server.address() as AddressInfo).port;
  }
  const gate = await createGateApp({
    port,
    clock,
    stateDir,
    enrollmentCode: ENROLLMENT_CODE,
    inventory: registryInventory(registry, { commandSupport: new CommandSupportCache() }),
    projectWriteFacts: registryProjectWriteFacts(registry),
    log: (line) => logs.push(line),
    audit,
    ...(options.eventPingIntervalMs === undefined
      ? {}
      : { eventPingIntervalMs: options.eventPingIntervalMs }),
    ...(options.startupWarnings === undefined ? {} : { startupWarnings: options.startupWarnings }),
    ...(engine === undefined ? {} : { inbox: { registry, engine } }),
    ...(options.remoteApproval === undefined ? {} : { remoteApproval: options.remoteApproval }),
    ...(options.remoteApprovalAtOwnOrigin === undefined
      ? {}
      : { remoteApproval: { origin: `http://localhost:${port}`, ...options.remoteApprovalAtOwnOrigin } }),
  });
  handler = (request, env) => gate.app.fetch(request, env);
  return {
    ...gate,
    sim,
    registry,
    clock,
    stateDir,
    port,
    origin: `http://localhost:${port}`,
    logs,
    audit,
    async close() {
      await engine?.close();
      await audit.close();
      await new Promise<void>((resolve) => {
        if (server === undefined) return resolve();
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await registry.close();
      await sim.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
