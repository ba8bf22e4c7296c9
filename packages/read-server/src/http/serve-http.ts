import { resolve } from "node:path";
import {
  DEFAULT_LOG_LEVEL,
  type LeveledLog,
  type LogLevel,
  leveledLog,
} from "@t3-connector/core/cli-support";
import { type CliIo, describeError } from "../cli/io.js";
import { prepareServe } from "../cli/serve-setup.js";
import { startStartupGate } from "../cli/startup-gate.js";
import { packageInfo } from "../package-info.js";
import { takeOverProcess } from "../process-takeover.js";
import type { ReadToolDefinition } from "../read-tool.js";
import { createReadServer, READ_SERVER_NAME } from "../server.js";
import type { BackgroundService, BackgroundServices } from "./background-service.js";
import { assertBindIsProtected, loadBearerToken } from "./bearer-auth.js";
import { buildAllowlist, type HostOriginAllowlist } from "./host-origin-guard.js";
import { createHttpApp } from "./http-app.js";
import { type HttpListener, listenHttp } from "./http-listener.js";
import { DEFAULT_HTTP_LIMITS, type HttpLimits, type HttpServeOptions, MCP_PATH } from "./http-options.js";
import { issuerAllowances, oauthForServe } from "./oauth-in-serve.js";
import { Readiness } from "./readiness.js";
import { InFlightRequests } from "./request-limits.js";

export interface ServeHttpExtras {
  readonly logLevel?: LogLevel;
  /** Tests narrow these to reach them; the CLI uses the defaults. */
  readonly limits?: Partial<HttpLimits>;
  /** Run beside the server (e.g. the events follower); see BackgroundService. */
  readonly services?: BackgroundServices;
  /** Resolves to stop; default: the first SIGINT or SIGTERM. */
  readonly stopSignal?: Promise<string>;
}

/** The one line `serve --http` prints on stdout once it listens (t3-sim prints its own the same way). */
export interface HttpReadyLine {
  url: string;
  healthz: string;
  readyz: string;
  auth: "bearer" | "none" | "oauth";
  tools: number;
  environments: string[];
}

/**
 * `t3-connector serve --http`: the read tools over MCP Streamable HTTP until SIGINT or SIGTERM.
 * Resolves with the exit code. Start-up verifies the environments in the background exactly as
 * on stdio (tool calls wait for it; a refusal stops the server with exit 1). Stdout carries only
 * the JSON ready line; every log line goes to stderr.
 */
export async function serveHttp(
  io: CliIo,
  definitions: readonly ReadToolDefinition[],
  options: HttpServeOptions,
  extras: ServeHttpExtras = {},
): Promise<number> {
  const log = leveledLog((text) => io.stderr.write(text), extras.logLevel ?? DEFAULT_LOG_LEVEL);
  const guard = takeOverProcess(log);
  const fail = (line: string) => {
    log.error(`${READ_SERVER_NAME}: ${line}`);
    guard.dispose();
    return 1;
  };
  const limits: HttpLimits = { ...DEFAULT_HTTP_LIMITS, ...extras.limits };

  let bearerToken: string | undefined;
  try {
    // With --oauth every /mcp request needs an OAuth token instead.
    if (options.oauth === undefined) assertBindIsProtected(options.host, options.authTokenFile);
    if (options.authTokenFile !== undefined)
      bearerToken = await loadBearerToken(resolve(options.authTokenFile));
  } catch (error) {
    return fail(`refusing to start: ${describeError(error)}`);
  }
  const prepared = await prepareServe(io, definitions, log);
  if ("problem" in prepared) return fail(prepared.problem);
  const { config, context } = prepared;
  let oauth: Awaited<ReturnType<typeof oauthForServe>>;
  try {
    oauth = await oauthForServe(io, config, options, {
      maxBodyBytes: limits.maxBodyBytes,
      log: (line) => log.info(`${READ_SERVER_NAME}: ${line}`),
    });
    if (oauth !== undefined && bearerToken !== undefined) {
      throw new Error("--auth-token-file and the oauth profile exclude each other: choose one");
    }
  } catch (error) {
    await context.registry.close();
    return fail(`refusing to start: ${describeError(error)}`);
  }

  const gate = startStartupGate(context.registry);
  const inFlight = new InFlightRequests(limits.maxConcurrentRequests);
  let allowlist: HostOriginAllowlist | undefined;
  const app = createHttpApp({
    allowlist: () => allowlist,
    ...(bearerToken === undefined ? {} : { bearerToken }),
    ...(oauth === undefined ? {} : { auth: oauth }),
    limits,
    inFlight,
    readiness: new Readiness(context.registry, (line) => log.debug(`${READ_SERVER_NAME}: ${line}`)),
    createServer: () => createReadServer(definitions, context, { beforeCall: () => gate.passed }),
    log: (line) => log.debug(`${READ_SERVER_NAME}: ${line}`),
    logError: (line) => log.error(`${READ_SERVER_NAME}: ${line}`),
  });

  let listener: HttpListener;
  try {
    listener = await listenHttp(app, { host: options.host, port: options.port, inFlight, limits });
    const issuer = issuerAllowances(oauth);
    allowlist = buildAllowlist({
      ...options,
      port: listener.port,
      allowedHosts: [...options.allowedHosts, ...issuer.hosts],
      allowedOrigins: [...options.allowedOrigins, ...issuer.origins],
    });
  } catch (error) {
    await context.registry.close();
    return fail(describeError(error));
  }
  const started: BackgroundService[] = [];
  let shuttingDown: Promise<void> | undefined;
  const shutDownOnce = () => {
    shuttingDown ??= shutDown(listener, started, limits, log);
    return shuttingDown;
  };
  let exitCode = 0;
  try {
    // Building them may refuse a bad config section: that refuses start-up like a failed start.
    for (const service of extras.services?.(context) ?? []) {
      await service.start();
      started.push(service);
    }
  } catch (error) {
    log.error(`${READ_SERVER_NAME}: refusing to start: a background service failed: ${describeError(error)}`);
    exitCode = 1;
  }

  if (exitCode === 0) {
    // With OAuth, clients must use the issuer's name (the Host is pinned to it).
    const url = oauth?.settings.resource ?? `${listener.origin}${MCP_PATH}`;
    const auth = authKind(oauth !== undefined, bearerToken);
    const ready = readyLine(listener.origin, url, auth, definitions.length, config.environments);
    io.stdout.write(`${JSON.stringify(ready)}\n`);
    log.info(
      `${READ_SERVER_NAME} ${packageInfo().version}: read-only MCP server on ${url} (Streamable HTTP, ` +
        `${AUTH_LABEL[ready.auth]}), ${definitions.length} tools, ` +
        `environments ${ready.environments.join(", ")} (config ${config.path})`,
    );
    if (oauth !== undefined) {
      log.info(
        `${READ_SERVER_NAME}: OAuth issuer ${oauth.settings.issuer}; clients connect to ${oauth.settings.resource}`,
      );
      const code = oauth.enrollmentCode();
      // The one secret printed on purpose: only the terminal that runs the server may enroll.
      if (code !== undefined)
        log.warn(`${READ_SERVER_NAME}: no passkey enrolled yet; enrollment code (one use): ${code}`);
    }
    if (isWildcardHost(options.host) && options.allowedHosts.length === 0) {
      log.warn(
        `${READ_SERVER_NAME}: warning: listening on every address of this machine; clients reaching it by ` +
          "another name or address get 403 until it is passed with --allowed-host",
      );
    }
    let stopping = false;
    void gate.done.then((check) => {
      if (stopping || check.refusals.length > 0) return;
      for (const warning of check.warnings) log.warn(`${READ_SERVER_NAME}: warning: ${warning}`);
    });
    const signals = extras.stopSignal === undefined ? listenForSignals() : undefined;
    const stop = extras.stopSignal ?? (signals as SignalListener).received;
    const outcome = await Promise.race([
      stop.then((signal) => ({ signal })),
      gate.refused.then((refusal) => ({ refusal })),
    ]);
    signals?.dispose();
    stopping = true;
    if ("refusal" in outcome) {
      log.error(`${READ_SERVER_NAME}: refusing to start: ${outcome.refusal.error}`);
      exitCode = 1;
    } else {
      // Said once the listener has stopped accepting (its close starts synchronously), so whoever
      // reads this line and connects is refused, never queued and reset.
      const closing = shutDownOnce();
      log.info(`${READ_SERVER_NAME}: ${outcome.signal}: finishing the calls in flight, refusing new ones`);
      await closing;
    }
  }
  await shutDownOnce();
  // Ends ssh tunnels and sockets we opened, and aborts verifications still running.
  await context.registry.close();
  guard.dispose();
  return exitCode;
}

function authKind(oauth: boolean, bearerToken: string | undefined): HttpReadyLine["auth"] {
  if (oauth) return "oauth";
  return bearerToken === undefined ? "none" : "bearer";
}

function readyLine(
  origin: string,
  url: string,
  auth: HttpReadyLine["auth"],
  tools: number,
  environments: ReadonlyArray<{ alias: string }>,
): HttpReadyLine {
  return {
    url,
    healthz: `${origin}/healthz`,
    readyz: `${origin}/readyz`,
    auth,
    tools,
    environments: environments.map((env) => env.alias),
  };
}

async function shutDown(
  listener: HttpListener,
  services: readonly BackgroundService[],
  limits: HttpLimits,
  log: LeveledLog,
): Promise<void> {
  await listener.close(limits.drainTimeoutMs);
  for (const service of [...services].reverse()) {
    await service.stop().catch((error: unknown) => {
      log.error(`${READ_SERVER_NAME}: stopping ${service.name} failed: ${describeError(error)}`);
    });
  }
}

const AUTH_LABEL: Record<HttpReadyLine["auth"], string> = {
  bearer: "bearer token required",
  none: "no token: loopback only",
  oauth: "OAuth session profile",
};

/** `0.0.0.0` or `::`: no client sends that as its Host, so the operator must name the real one. */
function isWildcardHost(host: string): boolean {
  return ["0.0.0.0", "::", "[::]"].includes(host);
}

interface SignalListener {
  /** The first SIGINT or SIGTERM. */
  readonly received: Promise<string>;
  dispose(): void;
}

function listenForSignals(): SignalListener {
  let on: (signal: NodeJS.Signals) => void = () => {};
  const received = new Promise<string>((resolve) => {
    on = (signal) => resolve(signal);
  });
  process.on("SIGINT", on);
  process.on("SIGTERM", on);
  return {
    received,
    dispose: () => {
      process.off("SIGINT", on);
      process.off("SIGTERM", on);
    },
  };
}
