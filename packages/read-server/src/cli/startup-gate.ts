import { ConnectorError } from "@t3-connector/core";
import { addEnvironmentCommandLine } from "@t3-connector/core/config";
import type { EnvironmentRegistry } from "@t3-connector/core/environments";
import { checkEnvironmentsAtStartup, STARTUP_VERIFY_TIMEOUT_MS, type StartupCheck } from "./startup-check.js";

export interface StartupRefusal {
  alias: string;
  error: ConnectorError;
}

/**
 * The start-up check of every environment, running in the background while the MCP session starts
 * (`initialize` and `tools/list` need no environment; over an SSH tunnel verification takes seconds).
 */
export interface StartupGate {
  /**
   * Resolves once every environment has been checked without a refusal (an environment that is
   * down or slow only warns); rejects with the first refusal. Tool calls wait on it.
   */
  readonly passed: Promise<void>;
  /** Resolves with the first refusal as soon as it is known; stays pending when there is none. */
  readonly refused: Promise<StartupRefusal>;
  /** The whole check, once every environment has settled. */
  readonly done: Promise<StartupCheck>;
}

export function startStartupGate(
  registry: EnvironmentRegistry,
  timeoutMs: number = STARTUP_VERIFY_TIMEOUT_MS,
): StartupGate {
  if (registry.environments.length === 0) return emptyGate();
  let refuse: (refusal: StartupRefusal) => void = () => {};
  const refused = new Promise<StartupRefusal>((resolve) => {
    refuse = resolve;
  });
  let first: StartupRefusal | undefined;
  const done = checkEnvironmentsAtStartup(registry, timeoutMs, (refusal) => {
    if (first !== undefined) return;
    first = refusal;
    refuse(refusal);
  });
  const passed = Promise.race([
    refused.then((refusal) => Promise.reject(refusal.error)),
    // Whichever settles first, a refusal wins: never a pass once an environment was refused.
    done.then(() => (first === undefined ? undefined : Promise.reject(first.error))),
  ]);
  // Nobody may be waiting when a refusal arrives; the refusal is handled through `refused`.
  passed.catch(() => undefined);
  return { passed, refused, done };
}

/**
 * No environment configured: the session still starts (a valid state, e.g. after removing the
 * last one), and every tool call answers `no_environments` with the command that adds one,
 * instead of an empty listing that would read as "no threads".
 */
function emptyGate(): StartupGate {
  const error = new ConnectorError(
    "no_environments",
    `no environment is configured; add one with: ${addEnvironmentCommandLine("read")} ` +
      "(pairing code on stdin), then restart this MCP server.",
  );
  const passed = Promise.reject(error);
  passed.catch(() => undefined);
  return { passed, refused: new Promise(() => {}), done: Promise.resolve({ refusals: [], warnings: [] }) };
}
