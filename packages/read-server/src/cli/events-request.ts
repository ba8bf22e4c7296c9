/**
 * `t3-connector events` and `serve --http` take the webhook settings from the read config's
 * `events` section; on the command line, each flag overrides its field. One merge, so both ways of
 * running the follower check the same things the same way.
 */
import { ConnectorError } from "@t3-connector/core";
import type { ReadConfig, ReadEventsConfig } from "@t3-connector/core/config";
import { EVENT_TYPES, type EventFilters, type EventType, isEventType } from "@t3-connector/events";
import type { EventsFlags, EventsRunRequest } from "./events-args.js";

export function resolveEventsRequest(flags: EventsFlags, config: ReadConfig): EventsRunRequest {
  const section: Partial<ReadEventsConfig> = config.events ?? {};
  const hookUrl = flags.hookUrl ?? section.hookUrl;
  const hookSecretFile = flags.hookSecretFile ?? section.hookSecretFile;
  if (hookUrl === undefined || hookSecretFile === undefined) {
    const missing =
      hookUrl === undefined ? ["--hook-url", "hookUrl"] : ["--hook-secret-file", "hookSecretFile"];
    throw new ConnectorError(
      "invalid_input",
      `events needs ${missing[0]}, or an "events" section with ${missing[1]} in ${config.path}`,
    );
  }
  const stateDir = flags.stateDir ?? section.stateDir;
  const maxAttempts = flags.maxAttempts ?? section.maxAttempts;
  const graceMs =
    flags.graceMs ?? (section.graceSeconds === undefined ? undefined : section.graceSeconds * 1_000);
  const maxAgeMs =
    flags.maxAgeMs ?? (section.maxAgeHours === undefined ? undefined : section.maxAgeHours * 3_600_000);
  return {
    hookUrl,
    hookSecretFile,
    ...(stateDir === undefined ? {} : { stateDir }),
    filters: mergedFilters(flags.filters, section, config.path),
    ...(maxAttempts === undefined ? {} : { maxAttempts }),
    ...(maxAgeMs === undefined ? {} : { maxAgeMs }),
    ...(graceMs === undefined ? {} : { graceMs }),
    ...(flags.retryBaseMs === undefined ? {} : { retryBaseMs: flags.retryBaseMs }),
  };
}

function mergedFilters(flags: EventFilters, section: Partial<ReadEventsConfig>, path: string): EventFilters {
  const environments = flags.environments ?? section.environments;
  const projects = flags.projects ?? section.projects;
  const types = flags.types ?? (section.types === undefined ? undefined : eventTypes(section.types, path));
  return {
    ...(environments === undefined ? {} : { environments }),
    ...(projects === undefined ? {} : { projects }),
    ...(types === undefined ? {} : { types }),
  };
}

function eventTypes(names: readonly string[], path: string): EventType[] {
  const unknown = names.filter((name) => !isEventType(name));
  if (unknown.length > 0) {
    throw new ConnectorError(
      "config_invalid",
      `${path}: events.types takes ${EVENT_TYPES.join(", ")} (not ${unknown.join(", ")})`,
    );
  }
  return names as EventType[];
}
