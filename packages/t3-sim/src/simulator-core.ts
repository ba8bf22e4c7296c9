import { randomUUID } from "node:crypto";
import { SimClock } from "./clock.js";
import type { Unknowns0046 } from "./model/age-0046.js";
import type { CompatProfile } from "./model/compat-0031.js";
import type { UnknownTagAnswer } from "./model/contract.js";
import type { TransportModel } from "./transport/environment-context.js";
import { type EnvironmentServer, startEnvironmentServer } from "./transport/environment-server.js";
import type { FaultController } from "./transport/faults.js";
import {
  ADMINISTRATIVE_SCOPES,
  SCOPE_OPERATE,
  SCOPE_READ,
  STANDARD_CLIENT_SCOPES,
} from "./transport/scopes.js";

export type EnvironmentProfile = "protocol-2" | "transitional" | CompatProfile;

export interface SimulatorEnvironmentOptions {
  readonly alias: string;
  /** Random UUID unless given. */
  readonly environmentId?: string;
  /** Defaults to the alias. */
  readonly label?: string;
  readonly seed?: "demo" | "empty";
  /** Play a transitional V2 server (fixtures' 0.0.31 build): no protocol negotiation. */
  readonly transitional?: boolean;
  /**
   * Play an older T3 build exactly: "0.0.31" is transitional plus that build's missing routes
   * (SPA fallback), its 37 accepted command types (decode `Die` for the rest) and its RPC methods.
   */
  readonly compat?: CompatProfile;
  /**
   * Whether the played T3 is installed with its web app (unknown GETs answer 200 index.html) or
   * run from source (503 text/plain). Default: true under `compat`, false otherwise.
   */
  readonly webBuild?: boolean;
  readonly serverVersion?: string;
  /**
   * Protocol 2 only: coalesce shell updates over 50 ms and hold back rows whose only change is
   * `updatedAt` for up to 5 s, like current upstream (default true). False: every commit's item.
   */
  readonly shellSuppression?: boolean;
  /** Fixed loopback port; 0 / absent picks a free one. */
  readonly port?: number;
  /**
   * Protocol 2 only: how this environment plays each point T3 0.0.46's sources leave open
   * (model/age-0046.ts); absent flags play as the simulator did before.
   */
  readonly unknowns?: Partial<Unknowns0046>;
  /** RPCs this T3 lacks (each answers `Unknown request tag`), to play a build without them. */
  readonly lacksMethods?: readonly string[];
  /** `connection-defect`: an unknown tag is answered as 0.0.28 does, a `Defect` with no request id. */
  readonly unknownTagAnswer?: UnknownTagAnswer;
}

export interface SimulatorOptions {
  readonly environments: readonly SimulatorEnvironmentOptions[];
  /** "manual": one SimClock per environment that only moves on `env.clock.advance(ms)`. */
  readonly clock?: "real" | "manual";
  /** Reject unknown fields in commands (default: ignore them, like T3). */
  readonly strictCommands?: boolean;
}

/** What a model factory receives; mirrors `createEnvironmentModel`'s options. */
export interface ModelFactoryOptions {
  readonly environmentId: string;
  readonly label: string;
  readonly serverVersion?: string;
  readonly clock: SimClock;
  readonly seed: "demo" | "empty";
  readonly transitional?: boolean;
  readonly compat?: CompatProfile;
  readonly strictCommands?: boolean;
  readonly shellSuppression?: boolean;
  readonly unknowns?: Partial<Unknowns0046>;
  readonly lacksMethods?: readonly string[];
  readonly unknownTagAnswer?: UnknownTagAnswer;
}

export interface SimEnvironment<M extends TransportModel = TransportModel> {
  readonly alias: string;
  readonly environmentId: string;
  readonly label: string;
  /** Which server it plays: protocol 2, a transitional V2 build, or an exact older build. */
  readonly profile: EnvironmentProfile;
  /** Whether unknown GETs answer the web app's page (true) or the from-source 503 (false). */
  readonly webBuild: boolean;
  /** The version the descriptor and `server.getConfig` report. */
  readonly serverVersion: string;
  /** "http://127.0.0.1:<port>" */
  readonly url: string;
  readonly port: number;
  /** Exactly ["orchestration:read"]. */
  readonly readToken: string;
  /** Exactly ["orchestration:read", "orchestration:operate"]. */
  readonly operateToken: string;
  /** The administrative bundle (may create pairing codes). */
  readonly adminToken: string;
  readonly clock: SimClock;
  readonly model: M;
  readonly faults: FaultController;
  /** Every HTTP request this environment received (method and path), in order. */
  readonly httpRequests: readonly { readonly method: string; readonly path: string }[];
  issueToken(options: { scopes: readonly string[]; ttlMs?: number }): string;
  /** A 12-character single-use pairing code, valid 5 minutes; default scopes: standard client bundle. */
  createPairingCode(options?: { scopes?: readonly string[] }): string;
  dropSockets(): void;
  stop(): Promise<void>;
}

export interface Simulator<M extends TransportModel = TransportModel> {
  readonly environments: readonly SimEnvironment<M>[];
  environment(alias: string): SimEnvironment<M>;
  close(): Promise<void>;
}

/** Starts every environment with `createModel`; on any failure the ones already started are stopped. */
export async function startSimulatorWith<M extends TransportModel>(
  createModel: (options: ModelFactoryOptions) => M,
  options: SimulatorOptions,
): Promise<Simulator<M>> {
  const aliases = new Set<string>();
  for (const env of options.environments) {
    if (aliases.has(env.alias)) throw new Error(`duplicate environment alias: ${env.alias}`);
    aliases.add(env.alias);
  }
  const started: SimEnvironment<M>[] = [];
  try {
    for (const env of options.environments) started.push(await startOne(createModel, options, env));
  } catch (error) {
    await Promise.all(started.map((env) => env.stop()));
    throw error;
  }
  return {
    environments: started,
    environment(alias) {
      const found = started.find((env) => env.alias === alias);
      if (!found) throw new Error(`unknown environment alias: ${alias}`);
      return found;
    },
    close: async () => {
      await Promise.all(started.map((env) => env.stop()));
    },
  };
}

async function startOne<M extends TransportModel>(
  createModel: (options: ModelFactoryOptions) => M,
  options: SimulatorOptions,
  env: SimulatorEnvironmentOptions,
): Promise<SimEnvironment<M>> {
  const clock = new SimClock({ mode: options.clock ?? "real" });
  const environmentId = env.environmentId ?? randomUUID();
  const label = env.label ?? env.alias;
  // An older build, or the 0.0.46 age, is played installed: a route it lacks answers the web page.
  const webBuild = env.webBuild ?? (env.compat !== undefined || env.unknowns !== undefined);
  const model = createModel({
    environmentId,
    label,
    clock,
    seed: env.seed ?? "demo",
    ...(env.serverVersion === undefined ? {} : { serverVersion: env.serverVersion }),
    ...(env.transitional === undefined ? {} : { transitional: env.transitional }),
    ...(env.compat === undefined ? {} : { compat: env.compat }),
    ...(options.strictCommands === undefined ? {} : { strictCommands: options.strictCommands }),
    ...(env.shellSuppression === undefined ? {} : { shellSuppression: env.shellSuppression }),
    ...(env.unknowns === undefined ? {} : { unknowns: env.unknowns }),
    ...(env.lacksMethods === undefined ? {} : { lacksMethods: env.lacksMethods }),
    ...(env.unknownTagAnswer === undefined ? {} : { unknownTagAnswer: env.unknownTagAnswer }),
  });
  let server: EnvironmentServer;
  try {
    server = await startEnvironmentServer({
      model,
      clock,
      transitional: env.transitional ?? false,
      webBuild,
      ...(env.compat === undefined ? {} : { compat: env.compat }),
      ...(env.port === undefined ? {} : { port: env.port }),
    });
  } catch (error) {
    disposeModel(model);
    clock.dispose();
    throw error;
  }
  let stopped: Promise<void> | undefined;
  return {
    alias: env.alias,
    environmentId,
    label,
    profile: env.compat ?? (env.transitional ? "transitional" : "protocol-2"),
    webBuild,
    serverVersion: model.descriptor().serverVersion,
    url: server.url,
    port: server.port,
    readToken: server.auth.issueToken({ scopes: [SCOPE_READ] }),
    operateToken: server.auth.issueToken({ scopes: [SCOPE_READ, SCOPE_OPERATE] }),
    adminToken: server.auth.issueToken({ scopes: ADMINISTRATIVE_SCOPES }),
    clock,
    model,
    faults: server.faults,
    httpRequests: server.httpRequests,
    issueToken: (o) => server.auth.issueToken(o),
    createPairingCode: (o = {}) =>
      server.auth.createPairingCode({ scopes: o.scopes ?? STANDARD_CLIENT_SCOPES }).credential,
    dropSockets: () => server.dropSockets(),
    stop: () => {
      stopped ??= (async () => {
        await server.close();
        disposeModel(model);
        clock.dispose();
      })();
      return stopped;
    },
  };
}

/** Models that hold timers or listeners may expose `dispose()` or `close()`; both are optional. */
function disposeModel(model: TransportModel): void {
  const disposable = model as { dispose?: () => void; close?: () => void };
  if (typeof disposable.dispose === "function") disposable.dispose();
  else if (typeof disposable.close === "function") disposable.close();
}
