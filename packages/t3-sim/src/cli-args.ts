/**
 * Argument parsing for `t3-sim` (commander, through core's `parseCommandLine`, like every CLI
 * here); pure, so the rules are testable without a process. To add a flag to `serve`: an
 * `.option(...)` in `defineServe`, a field in `ServeArgs`, a line in USAGE.
 */

import { parseCommandLine, requireValue, usageProblem, VERSION_FLAGS } from "@t3-connector/core/cli-support";
import type { Command } from "commander";
import { COMPAT_PROFILES, type CompatProfile } from "./model/compat-0031.js";
import type { ReportProfile } from "./profile-from-report.js";
import type { SimulatorEnvironmentOptions } from "./simulator-core.js";

/** A per-environment setting: `all` for every environment, `byAlias` overrides it. */
export interface PerEnvironment<T> {
  readonly all?: T;
  readonly byAlias?: Readonly<Record<string, T>>;
}

export interface ServeArgs {
  readonly command: "serve";
  /** First port; environment i listens on port + i. Absent: free ports. */
  readonly port?: number;
  readonly environments: number;
  readonly seed: "demo" | "empty";
  readonly configOut?: string;
  /** Which environments play an older T3 build exactly (absent: protocol 2). */
  readonly compat?: PerEnvironment<CompatProfile>;
  /** Installed with its web app (unknown GETs answer index.html) or run from source (503). */
  readonly webBuild?: PerEnvironment<boolean>;
  /** A `diagnose --deep` report every environment plays (profile-from-report.ts). */
  readonly profileReport?: string;
}

export type ParsedArgs =
  | ServeArgs
  | { readonly command: "help" }
  | { readonly command: "version" }
  /** A usage problem, and the command it belongs to (for the pointer to its own help). */
  | { readonly command: "error"; readonly message: string; readonly path: readonly string[] };

export const USAGE = `Usage: t3-sim serve [--port N] [--environments N] [--seed demo|empty] [--config-out DIR]
                    [--compat [ALIAS=]0.0.31]... [--web-build [ALIAS]]... [--no-web-build [ALIAS]]...
                    [--profile-report FILE]

Starts simulated T3 Code environments on 127.0.0.1 (one port each) and prints one JSON line
{"environments":[{"alias","environmentId","url","readToken","operateToken","pairingCode","profile",
"serverVersion","webBuild"}]} on stdout when ready. "profile" is "protocol-2" or the compat profile
("0.0.31"). pairingCode is single use and valid 5 minutes, like one from \`t3 auth pairing create\`.

  --port N          first port (environment i listens on N+i); default: free ports
  --environments N  how many environments (1-26, default 1), aliases alpha, beta, gamma, ...
  --seed demo|empty initial state (default demo)
  --config-out DIR  write DIR/config.json, DIR/write.json and DIR/tokens/<alias>.{read,operate}.token
  --compat 0.0.31   every environment plays T3 0.0.31 (an early Orchestrator V2 build): no
                    orchestrationProtocolVersion, no bounded/history routes (SPA fallback), only its
                    37 command types (the others die with its decode defect), only its RPC methods
  --compat ALIAS=0.0.31
                    only that environment (repeatable), e.g. --environments 2 --compat beta=0.0.31
  --no-web-build [ALIAS]
                    play a T3 run from source: a GET no route matches answers 503 text/plain
                    "No static directory configured and no dev URL set." (default without --compat)
  --web-build [ALIAS]
                    play an installed T3: such a GET answers 200 text/html, the web app's index.html
                    (default under --compat); without ALIAS both apply to every environment
  --profile-report FILE
                    every environment plays the server a t3-connector \`diagnose --deep --json\`
                    report describes: its version, and each open point of T3 0.0.46 it saw differ
  --help            show this text
  -v, --version     print the version

Stops on SIGINT or SIGTERM.
`;

export const ALIASES = [
  "alpha",
  "beta",
  "gamma",
  "delta",
  "epsilon",
  "zeta",
  "eta",
  "theta",
  "iota",
  "kappa",
  "lambda",
  "mu",
  "nu",
  "xi",
  "omicron",
  "pi",
  "rho",
  "sigma",
  "tau",
  "upsilon",
  "phi",
  "chi",
  "psi",
  "omega",
  "aleph",
  "beth",
] as const;

export function parseArgs(argv: readonly string[]): ParsedArgs {
  if (argv.length === 0) return { command: "help" };
  const outcome = parseCommandLine(argv, defineServe, { name: "t3-sim", versionFlags: VERSION_FLAGS });
  switch (outcome.kind) {
    case "parsed":
      return outcome.value;
    case "problem":
      return { command: "error", message: outcome.problem, path: outcome.command };
    case "none":
      return { command: "help" };
    default:
      return { command: outcome.kind };
  }
}

/** `serve` and its flags; the checks that span several flags run once all are read. */
/** What commander hands `serve`'s action (the repeatable switches are recorded apart). */
interface ServeFlags {
  port?: number;
  environments?: number;
  seed?: "demo" | "empty";
  configOut?: string;
  profileReport?: string;
}

function defineServe(program: Command, found: (args: ServeArgs) => void): void {
  const compat: { all?: CompatProfile; byAlias: Record<string, CompatProfile> } = { byAlias: {} };
  const webBuild: { all?: boolean; byAlias: Record<string, boolean> } = { byAlias: {} };
  const serve = program
    .command("serve")
    .option("--port <n>", "first port", (value: string) => {
      const n = Number(requireValue("--port", value));
      if (!Number.isInteger(n) || n < 1 || n > 65535) throw usageProblem(`invalid --port: ${value}`);
      return n;
    })
    .option("--environments <n>", "how many environments", (value: string) => {
      const n = Number(requireValue("--environments", value));
      if (!Number.isInteger(n) || n < 1 || n > ALIASES.length) {
        throw usageProblem(`invalid --environments: ${value} (1-${ALIASES.length})`);
      }
      return n;
    })
    .option("--seed <seed>", "demo or empty", (value: string) => {
      if (value !== "demo" && value !== "empty") throw usageProblem(`invalid --seed: ${value}`);
      return value;
    })
    .option("--config-out <dir>", "where the config files go", (value: string) =>
      requireValue("--config-out", value),
    )
    // Repeatable: each one is recorded as it is read (below), not kept as commander's last value.
    .option("--compat <[alias=]profile>", "play an older T3 build")
    .option("--web-build [alias]", "play an installed T3")
    .option("--no-web-build [alias]", "play a T3 run from source");
  withProfileReport(serve);
  serve.on("option:compat", (value: string) => {
    const [alias, profile] = value.includes("=") ? value.split("=", 2) : [undefined, value];
    if (!isCompatProfile(profile)) {
      throw usageProblem(`invalid --compat: ${value} (${COMPAT_PROFILES.join(", ")})`);
    }
    if (alias === undefined) compat.all = profile;
    else compat.byAlias[alias] = profile;
  });
  // The alias is optional: without one the switch applies to every environment.
  for (const [flag, on] of [
    ["web-build", true],
    ["no-web-build", false],
  ] as const) {
    serve.on(`option:${flag}`, (alias: string | null) => {
      if (alias === null) webBuild.all = on;
      else webBuild.byAlias[alias] = on;
    });
  }
  serve.action((options: ServeFlags) => {
    const { port, configOut, profileReport } = options;
    const environments = options.environments ?? 1;
    if (port !== undefined && port + environments - 1 > 65535) throw usageProblem("--port too high");
    const served = ALIASES.slice(0, environments) as readonly string[];
    for (const [flag, setting] of [
      ["--compat", compat],
      ["--web-build/--no-web-build", webBuild],
    ] as const) {
      const unknown = Object.keys(setting.byAlias).find((alias) => !served.includes(alias));
      if (unknown !== undefined) {
        throw usageProblem(`${flag}: no environment ${unknown} (${served.join(", ")})`);
      }
    }
    found({
      command: "serve",
      environments,
      seed: options.seed ?? "demo",
      ...(port === undefined ? {} : { port }),
      ...(configOut === undefined ? {} : { configOut }),
      ...(profileReport === undefined ? {} : { profileReport }),
      ...(isSet(compat) ? { compat: compact(compat) } : {}),
      ...(isSet(webBuild) ? { webBuild: compact(webBuild) } : {}),
    });
  });
}

/** `--profile-report FILE`: a `diagnose --deep` report every environment plays (profile-from-report.ts). */
function withProfileReport(serve: Command): void {
  serve.option(
    "--profile-report <file>",
    "play the server a diagnose --deep report describes",
    (value: string) => requireValue("--profile-report", value),
  );
}

/** The environments `serve` starts: aliases in order, each with its profile and web build. */
export function serveEnvironments(
  args: ServeArgs,
  profile: ReportProfile = {},
): SimulatorEnvironmentOptions[] {
  return ALIASES.slice(0, args.environments).map((alias, index) => {
    const compat = pick(args.compat, alias);
    const webBuild = pick(args.webBuild, alias);
    return {
      alias,
      seed: args.seed,
      ...profile,
      ...(args.port === undefined ? {} : { port: args.port + index }),
      ...(compat === undefined ? {} : { compat }),
      ...(webBuild === undefined ? {} : { webBuild }),
    };
  });
}

function pick<T>(setting: PerEnvironment<T> | undefined, alias: string): T | undefined {
  return setting?.byAlias?.[alias] ?? setting?.all;
}

function isCompatProfile(value: string | undefined): value is CompatProfile {
  return (COMPAT_PROFILES as readonly (string | undefined)[]).includes(value);
}

function isSet<T>(setting: { all?: T; byAlias: Record<string, T> }): boolean {
  return setting.all !== undefined || Object.keys(setting.byAlias).length > 0;
}

function compact<T>(setting: { all?: T; byAlias: Record<string, T> }): PerEnvironment<T> {
  return {
    ...(setting.all === undefined ? {} : { all: setting.all }),
    ...(Object.keys(setting.byAlias).length === 0 ? {} : { byAlias: setting.byAlias }),
  };
}
