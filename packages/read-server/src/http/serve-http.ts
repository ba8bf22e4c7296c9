import {
  type CliIo,
  DEFAULT_LOG_LEVEL,
  describeError,
  type LeveledLog,
  type LogLevel,
  leveledLog,
} from "@t3-connector/core/cli-support";
import type { FanOutDeadlines } from "@t3-connector/core/fanout";
import type { MetadataFetcher } from "@t3-connector/oauth";
import type { Hono } from "hono";
import { type StartupGate, startStartupGate } from "../cli/startup-gate.js";
import { takeOverProcess } from "../process-takeover.js";
import type { ReadContext } from "../read-context.js";
import type { ReadToolDefinition } from "../read-tool.js";
import { createReadServer } from "../server.js";
import { READ_SERVER_NAME } from "../server-name.js";
import { mountApprovalForward } from "./approval-forward.js";
import type { BackgroundService, BackgroundServices } from "./background-service.js";
import { buildAllowlist, type HostOriginAllowlist } from "./host-origin-guard.js";
import { createHttpApp } from "./http-app.js";
import { type HttpListener, listenHttp } from "./http-listener.js";
import { DEFAULT_HTTP_LIMITS, type HttpLimits, type HttpServeOptions } from "./http-options.js";
import { issuerAllowances } from "./oauth-in-serve.js";
import { Readiness } from "./readiness.js";
import { InFlightRequests } from "./request-limits.js";
import { announceListening } from "./serve-http-announce.js";
import { type HttpServeSetup, setUpHttpServe } from "./serve-http-setup.js";
import { serveUntilStopped } from "./serve-until-stopped.js";
import { serverPartsFor, sessionAuthInfo } from "./write-session-parts.js";

export interface ServeHttpExtras {
  readonly logLevel?: LogLevel;
  /** Tests narrow these to reach them; the CLI uses the defaults. */
  readonly limits?: Partial<HttpLimits>;
  /** Where the read context's deadlines come from (a test expires them by hand); real timers by default. */
  readonly deadlines?: FanOutDeadlines;
  /** Run beside the server (e.g. the events follower); see BackgroundService. */
  readonly services?: BackgroundServices;
  /** Resolves to stop; default: the first SIGINT or SIGTERM. */
  readonly stopSignal?: Promise<string>;
  /** How the OAuth profile fetches client metadata documents (a test serves its own); HTTPS by default. */
  readonly oauthFetcher?: MetadataFetcher;
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
  const timing = {
    ...(extras.deadlines === undefined ? {} : { deadlines: extras.deadlines }),
    ...(extras.oauthFetcher === undefined ? {} : { oauthFetcher: extras.oauthFetcher }),
  };
  const setup = await setUpHttpServe(io, definitions, options, log, timing);
  if ("problem" in setup) return fail(setup.problem);
  const { context } = setup;
  const gate = startStartupGate(context.registry);
  let listener: HttpListener;
  try {
    listener = await listenGuarded(setup, { definitions, options, limits, gate, log });
  } catch (error) {
    await setup.oauth?.close();
    await context.registry.close();
    return fail(describeError(error));
  }
  const started: BackgroundService[] = [];
  let shuttingDown: Promise<void> | undefined;
  const shutDownOnce = () => {
    shuttingDown ??= shutDown(listener, started, limits, log);
    return shuttingDown;
  };
  let exitCode = await startServices(extras, context, started, log);
  if (exitCode === 0) {
    announceListening(io, log, { setup, listener, options, tools: definitions.length });
    exitCode = await serveUntilStopped(gate, extras.stopSignal, shutDownOnce, log);
  }
  await shutDownOnce();
  await setup.oauth?.close();
  // Ends ssh tunnels and sockets we opened, and aborts verifications still running.
  await context.registry.close();
  guard.dispose();
  return exitCode;
}

/**
 * Builds the app and listens; the Host/Origin allowlist is known only once the port is, so the app
 * reads it through a function that answers undefined (refuse everything) until then.
 */
async function listenGuarded(
  setup: HttpServeSetup,
  parts: {
    definitions: readonly ReadToolDefinition[];
    options: HttpServeOptions;
    limits: HttpLimits;
    gate: StartupGate;
    log: LeveledLog;
  },
): Promise<HttpListener> {
  const { context, bearerToken, oauth, approvalForward } = setup;
  const { definitions, options, limits, gate, log } = parts;
  const inFlight = new InFlightRequests(limits.maxConcurrentRequests);
  // One function for every request's server, so that their read tools are one group (ADR 0072).
  const beforeCall = () => gate.passed;
  let allowlist: HostOriginAllowlist | undefined;
  const app = createHttpApp({
    allowlist: () => allowlist,
    ...(bearerToken === undefined ? {} : { bearerToken }),
    ...(oauth === undefined ? {} : { auth: oauth }),
    ...(approvalForward === undefined
      ? {}
      : { extraRoutes: (app: Hono) => mountApprovalForward(app, approvalForward) }),
    limits,
    inFlight,
    readiness: new Readiness(context.registry, (line) => log.debug(`${READ_SERVER_NAME}: ${line}`)),
    ...(oauth === undefined ? {} : { authInfoOf: sessionAuthInfo }),
    createServer: (authInfo) =>
      createReadServer(definitions, context, {
        beforeCall,
        ...serverPartsFor(setup.writes, authInfo),
      }),
    log: (line) => log.debug(`${READ_SERVER_NAME}: ${line}`),
    logError: (line) => log.error(`${READ_SERVER_NAME}: ${line}`),
    logRefusal: (line) => log.warn(`${READ_SERVER_NAME}: ${line}`),
  });
  const listener = await listenHttp(app, { host: options.host, port: options.port, inFlight, limits });
  const issuer = issuerAllowances(oauth);
  allowlist = buildAllowlist({
    ...options,
    port: listener.port,
    allowedHosts: [...options.allowedHosts, ...issuer.hosts],
    allowedOrigins: [...options.allowedOrigins, ...issuer.origins],
  });
  // Under OAuth only the issuer's name is right: the refusal says so (and names the proxy line).
  if (oauth !== undefined) allowlist = { ...allowlist, refuseHost: oauth.hostRefusal };
  return listener;
}

/** Starts the background services in order; answers 1 when one refuses (like a failed start). */
async function startServices(
  extras: ServeHttpExtras,
  context: ReadContext,
  started: BackgroundService[],
  log: LeveledLog,
): Promise<number> {
  try {
    // Building them may refuse a bad config section: that refuses start-up like a failed start.
    for (const service of extras.services?.(context) ?? []) {
      await service.start();
      started.push(service);
    }
    return 0;
  } catch (error) {
    log.error(`${READ_SERVER_NAME}: refusing to start: a background service failed: ${describeError(error)}`);
    return 1;
  }
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
