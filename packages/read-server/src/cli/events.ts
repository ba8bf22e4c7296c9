import { isConnectorError } from "@t3-connector/core";
import { type CliIo, writeJson } from "@t3-connector/core/cli-support";
import { readTokenFile } from "@t3-connector/core/config";
import {
  defaultEventsStateDir,
  type EventsService,
  readOutboxStatus,
  retryDeadLetter,
  startEventsService,
} from "@t3-connector/events";
import { gateApprovalSource } from "../events/gate-approvals.js";
import { loadCliConfig } from "./config-access.js";
import type { EventsFlags, EventsRunRequest } from "./events-args.js";
import { resolveEventsRequest } from "./events-request.js";

/** The flag's directory, else the config section's (resolved by the caller), else the default. */
export function eventsStateDir(io: CliIo, stateDir: string | undefined): string {
  return stateDir ?? defaultEventsStateDir(io.env ?? {}, io.homeDir);
}

/** `events status` / `retry` look where `events` writes: the flag, else the config's stateDir. */
async function configuredStateDir(io: CliIo, stateDir: string | undefined): Promise<string> {
  if (stateDir !== undefined) return stateDir;
  const config = await loadCliConfig(io).catch((error: unknown) => {
    // No config at all: the default directory is the only place an outbox can be.
    if (isConnectorError(error, "config_not_found")) return undefined;
    throw error;
  });
  return eventsStateDir(io, config?.events?.stateDir);
}

/**
 * What the events service runs with, from the merged request: the secret read from its 0600 file,
 * the state directory resolved, logs on stderr. Shared by `events` and `serve --http`.
 */
export async function serviceOptions(io: CliIo, request: EventsRunRequest) {
  const log = (line: string) => void io.stderr.write(`${line}\n`);
  // On by default like the thread events, whenever a write config names a gate.
  const approvals = await gateApprovalSource(io, log);
  return {
    hookUrl: request.hookUrl,
    secret: await readTokenFile(request.hookSecretFile, {
      what: "webhook secret file",
      whenMissing: "write the receiver's signing secret there (mode 600, in a directory with mode 700)",
    }),
    stateDir: eventsStateDir(io, request.stateDir),
    filters: request.filters,
    policy: {
      ...(request.maxAttempts === undefined ? {} : { maxAttempts: request.maxAttempts }),
      ...(request.maxAgeMs === undefined ? {} : { maxAgeMs: request.maxAgeMs }),
      ...(request.retryBaseMs === undefined ? {} : { baseDelayMs: request.retryBaseMs }),
      ...(request.graceMs === undefined ? {} : { graceMs: request.graceMs }),
    },
    log,
    ...(io.fetch ? { fetch: io.fetch } : {}),
    ...(approvals === undefined ? {} : { approvals }),
  };
}

/**
 * `t3-connector events`: follows every configured environment and delivers its events until
 * SIGINT/SIGTERM, then lets the POSTs in flight finish and be recorded. Logs go to stderr.
 */
export async function eventsCommand(io: CliIo, flags: EventsFlags): Promise<number> {
  const config = await loadCliConfig(io);
  const options = await serviceOptions(io, resolveEventsRequest(flags, config));
  const service: EventsService = await startEventsService({ ...options, config });
  options.log(`events: delivering to ${new URL(options.hookUrl).origin}; state in ${options.stateDir}`);
  // The service's timers do not hold the process (core's timers are unref'd): while every
  // environment is unreachable nothing else would, so this does, until a signal.
  const keepAlive = setInterval(() => undefined, 1 << 30);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  clearInterval(keepAlive);
  await service.stop();
  return 0;
}

/** `events status`: outbox depth, last success and dead letters, as JSON. */
export async function eventsStatusCommand(io: CliIo, stateDir: string | undefined): Promise<number> {
  const directory = await configuredStateDir(io, stateDir);
  // Which directory was read: a status of the wrong one looks like a quiet, healthy outbox.
  writeJson(io, { stateDir: directory, ...(await readOutboxStatus(directory)) });
  return 0;
}

/** `events retry <id>`: a dead letter goes back to pending; a running `events` sends it. */
export async function eventsRetryCommand(
  io: CliIo,
  id: string,
  stateDir: string | undefined,
): Promise<number> {
  const pending = await retryDeadLetter(await configuredStateDir(io, stateDir), id, new Date().toISOString());
  writeJson(io, { retried: pending.id, type: pending.type });
  return 0;
}
