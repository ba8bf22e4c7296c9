/**
 * `t3-connector events …` on the one parser (commander through core's `parseCommandLine`):
 * `events --hook-url URL --hook-secret-file F [--state-dir D] [filters] [retry bounds]`,
 * `events status [--state-dir D]` and `events retry <id> [--state-dir D]`.
 */
import { usageProblem, valueOnce } from "@t3-connector/core/cli-support";
import { EVENT_TYPES, type EventFilters, type EventType, isEventType } from "@t3-connector/events";
import type { Command } from "commander";

/** What `events` runs with, once the flags and the config's `events` section are merged. */
export interface EventsRunRequest {
  hookUrl: string;
  hookSecretFile: string;
  stateDir?: string;
  filters: EventFilters;
  maxAttempts?: number;
  maxAgeMs?: number;
  retryBaseMs?: number;
  /** How long a waiting event is held for the grace period (default 10 s). */
  graceMs?: number;
}

/**
 * What the command line said. The hook URL and secret file may come from the config's `events`
 * section instead (see events-request.ts), so they are optional here.
 */
export type EventsFlags = Omit<EventsRunRequest, "hookUrl" | "hookSecretFile"> &
  Partial<Pick<EventsRunRequest, "hookUrl" | "hookSecretFile">>;

export type EventsCliCommand =
  | { kind: "events"; request: EventsFlags }
  | { kind: "events-status"; stateDir?: string }
  | { kind: "events-retry"; id: string; stateDir?: string };

interface RunFlags {
  hookUrl?: string;
  hookSecretFile?: string;
  stateDir?: string;
  environment?: string;
  project?: string;
  type?: string;
  maxAttempts?: string;
  maxAgeHours?: string;
  retryBaseMs?: string;
  graceSeconds?: string;
}

export function defineEventsCommands(program: Command, found: (command: EventsCliCommand) => void): void {
  const events = program
    .command("events")
    .description("POST signed run and thread events (Standard Webhooks) to a URL until stopped")
    .option("--hook-url <url>", "where events are POSTed", valueOnce("--hook-url"))
    .option(
      "--hook-secret-file <file>",
      "the whsec_ secret, in a mode 600 file",
      valueOnce("--hook-secret-file"),
    )
    .option("--state-dir <dir>", "outbox and last-seen state", valueOnce("--state-dir"))
    .option(
      "--environment <list>",
      "only these environments (aliases or ids, comma-separated)",
      valueOnce("--environment"),
    )
    .option(
      "--project <list>",
      "only these projects (ids or titles, comma-separated)",
      valueOnce("--project"),
    )
    .option("--type <list>", `only these event types: ${EVENT_TYPES.join(", ")}`, valueOnce("--type"))
    .option("--max-attempts <n>", "attempts before a dead letter (default 12)", valueOnce("--max-attempts"))
    .option("--max-age-hours <h>", "age before a dead letter (default 24)", valueOnce("--max-age-hours"))
    .option("--retry-base-ms <ms>", "first retry delay ceiling (default 1000)", valueOnce("--retry-base-ms"))
    .option(
      "--grace-seconds <s>",
      "hold a waiting event this long; if it is answered meanwhile, send neither (default 10, 0: off)",
      valueOnce("--grace-seconds"),
    )
    .action((flags: RunFlags) => found({ kind: "events", request: runRequest(flags) }));

  events
    .command("status")
    .description("outbox depth, last success and dead letters, and the state directory read (JSON)")
    .option("--state-dir <dir>", "outbox and last-seen state", valueOnce("--state-dir"))
    .action((flags: { stateDir?: string }) => found({ kind: "events-status", ...stateDirOf(flags) }));

  events
    .command("retry [id]")
    .description("move a dead letter back to the outbox")
    .option("--state-dir <dir>", "outbox and last-seen state", valueOnce("--state-dir"))
    .action((id: string | undefined, flags: { stateDir?: string }) => {
      if (id === undefined)
        throw usageProblem("events retry needs the id of a dead letter (see events status)");
      found({ kind: "events-retry", id, ...stateDirOf(flags) });
    });
}

function stateDirOf(flags: { stateDir?: string }): { stateDir?: string } {
  return flags.stateDir === undefined ? {} : { stateDir: flags.stateDir };
}

function runRequest(flags: RunFlags): EventsFlags {
  const filters: EventFilters = {
    ...listOf("environments", flags.environment),
    ...listOf("projects", flags.project),
  };
  if (flags.type !== undefined) {
    const types = split("--type", flags.type);
    const unknown = types.filter((type) => !isEventType(type));
    if (unknown.length > 0) {
      throw usageProblem(`--type takes ${EVENT_TYPES.join(", ")} (not ${unknown.join(", ")})`);
    }
    filters.types = types as EventType[];
  }
  const maxAttempts = positive("--max-attempts", flags.maxAttempts);
  const maxAgeHours = positive("--max-age-hours", flags.maxAgeHours);
  const retryBaseMs = positive("--retry-base-ms", flags.retryBaseMs);
  const graceSeconds = nonNegative("--grace-seconds", flags.graceSeconds);
  return {
    ...(flags.hookUrl === undefined ? {} : { hookUrl: flags.hookUrl }),
    ...(flags.hookSecretFile === undefined ? {} : { hookSecretFile: flags.hookSecretFile }),
    ...stateDirOf(flags),
    filters,
    ...(maxAttempts === undefined ? {} : { maxAttempts: Math.floor(maxAttempts) }),
    ...(maxAgeHours === undefined ? {} : { maxAgeMs: maxAgeHours * 3_600_000 }),
    ...(retryBaseMs === undefined ? {} : { retryBaseMs }),
    ...(graceSeconds === undefined ? {} : { graceMs: graceSeconds * 1_000 }),
  };
}

function listOf<K extends "environments" | "projects">(
  key: K,
  value: string | undefined,
): Partial<Record<K, string[]>> {
  return value === undefined
    ? {}
    : ({ [key]: split(`--${key.slice(0, -1)}`, value) } as Partial<Record<K, string[]>>);
}

function split(flag: string, value: string): string[] {
  const items = value.split(",").map((item) => item.trim());
  if (items.some((item) => item === "")) throw usageProblem(`${flag} takes a comma-separated list`);
  return items;
}

function positive(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw usageProblem(`${flag} takes a positive number`);
  return number;
}

function nonNegative(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0 || number > 3600) {
    throw usageProblem(`${flag} takes a number of seconds from 0 to 3600`);
  }
  return number;
}
