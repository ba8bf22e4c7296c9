/**
 * The command line of `t3-connector`, parsed into one command (commander, through core's
 * `parseCommandLine`, like every CLI here). Pure, so every spelling is tested without a process.
 *
 * To add a command: declare it in `defineCommands` (`program.command(...).action(... found(...))`),
 * with a `.description` (its own `--help` shows it), add its kind to `CliCommand`, a line to USAGE
 * in ../cli.ts and a case to `runCli`. To add a
 * flag: `.option("--flag <value>", "…", valueOnce("--flag"))` on its command.
 *
 * The Portuguese names of the previous contract (`ambientes`, `diagnostico`, `--ambiente`) stay
 * accepted as aliases: a human typing them means the same command, and unlike a tool parameter
 * an alias cannot be silently dropped.
 */
import {
  CLIENT_NAMES,
  type CommandLineExtra,
  commandOf,
  DEFAULT_LOG_LEVEL,
  type LogLevel,
  logLevelOption,
  parseCommandLine,
  transportFromOptions,
  usageProblem,
  VERSION_FLAGS,
  valueOnce,
  type Warn,
  withTransportOptions,
} from "@t3-connector/core/cli-support";
import type {
  AddEnvironmentRequest,
  OperateConfigName,
  ProjectsOption,
  TransportOption,
} from "@t3-connector/core/pairing";
import { type Command, Option } from "commander";
import {
  clientConfigHttpOf,
  type HttpServeFlags,
  httpServeOptionsOf,
  withClientConfigHttpOptions,
  withHttpServeOptions,
} from "../http/http-args.js";
import type { HttpServeOptions } from "../http/http-options.js";
import { parseAlsoOption } from "./also-option.js";
import { defineEventsCommands, type EventsCliCommand } from "./events-args.js";

export type CliCommand =
  | { kind: "serve"; logLevel: LogLevel; http?: HttpServeOptions }
  | { kind: "environments" }
  | { kind: "environments-add"; request: AddEnvironmentRequest }
  | { kind: "environments-remove"; alias: string }
  | { kind: "environments-move"; alias: string; transport: TransportOption }
  | { kind: "client-config"; client: string; http?: { url?: string } }
  | { kind: "diagnose"; environment?: string; projects?: true; deep?: true; json?: true }
  | { kind: "pair"; environment: string; also?: OperateConfigName[] }
  | EventsCliCommand
  | { kind: "oauth"; action: "sessions" | "revoke-all" | "enroll" | "passkeys" }
  | { kind: "oauth"; action: "remove-passkey"; id: string; force: boolean }
  | { kind: "oauth"; action: "revoke"; id: string }
  | CommandLineExtra;

export function parseCliArgs(argv: readonly string[]): CliCommand & { warnings?: readonly string[] } {
  return commandOf(
    parseCommandLine(argv, defineCommands, { name: "t3-connector", versionFlags: VERSION_FLAGS }),
  );
}

function defineCommands(program: Command, found: (command: CliCommand) => void, warn: Warn): void {
  // `serve` is always named: with no arguments the CLI helps instead (ADR 0030).
  withHttpServeOptions(
    program
      .command("serve")
      .description("run the read-only MCP server over stdio, or over Streamable HTTP with --http")
      .addOption(logLevelOption()),
  ).action((options: { logLevel?: LogLevel } & HttpServeFlags) => {
    const http = httpServeOptionsOf(options);
    const logLevel = options.logLevel ?? DEFAULT_LOG_LEVEL;
    found(http === undefined ? { kind: "serve", logLevel } : { kind: "serve", logLevel, http });
  });

  defineEnvironmentsCommands(program, found, warn);
  defineSetupCommands(program, found);
  defineEventsCommands(program, found);
  defineOauthCommands(program, found);
}

/** `environments`, `environments add`, `environments remove`, `environments move`. */
function defineEnvironmentsCommands(
  program: Command,
  found: (command: CliCommand) => void,
  warn: Warn,
): void {
  const environments = program
    .command("environments")
    .alias("ambientes")
    .description("print the configured environments and whether each answers (JSON); add, remove or move one")
    .action(() => found({ kind: "environments" }));
  withTransportOptions(
    environments
      .command("add [alias]")
      .description(
        "pair a new environment (pairing code on stdin or at the prompt), pick its projects, verify",
      ),
  )
    .option("--projects <all|ids>", "all, or a comma-separated list of projectIds", valueOnce("--projects"))
    .option("--also <write,ops|none>", "also fill write.json and ops.json", valueOnce("--also"))
    .action((alias: string | undefined, options: AddFlags) => {
      const request: AddEnvironmentRequest = {
        alias: requireAlias("add", alias),
        transport: transportFromOptions(options, warn) satisfies TransportOption,
        ...alsoOf(options.also),
      };
      const projects = projectsOption(options.projects);
      found({
        kind: "environments-add",
        request: projects === undefined ? request : { ...request, projects },
      });
    });
  environments
    .command("remove [alias]")
    .description("take an environment out of the config and delete its token file")
    .action((alias: string | undefined) =>
      found({ kind: "environments-remove", alias: requireAlias("remove", alias) }),
    );
  withTransportOptions(
    environments
      .command("move [alias]")
      .description("point an environment at its new address (same environmentId), keeping its token"),
  ).action((alias: string | undefined, options: AddFlags) =>
    found({
      kind: "environments-move",
      alias: requireAlias("move", alias),
      transport: transportFromOptions(options, warn, "environments move"),
    }),
  );
}

/** `client-config`, `diagnose`, `pair`. */
function defineSetupCommands(program: Command, found: (command: CliCommand) => void): void {
  withClientConfigHttpOptions(
    program
      .command("client-config [client]")
      .description(`print the config that starts this server in an MCP client: ${CLIENT_NAMES.join(", ")}`),
  ).action((client: string | undefined, options: { http?: boolean; url?: string }) => {
    if (client === undefined) {
      throw usageProblem(`client-config needs a client: ${CLIENT_NAMES.join(", ")}`);
    }
    const http = clientConfigHttpOf(options);
    found(http === undefined ? { kind: "client-config", client } : { kind: "client-config", client, http });
  });

  environmentFlags(
    program
      .command("diagnose")
      .alias("diagnostico")
      .description("check identity, token scopes and expiry, projects and visible threads (JSON)"),
  )
    .option("--projects", "list each environment's projects")
    .option("--deep [environment]", "probe one environment's every assumption, read-only (a report)")
    .option("--json", "with --deep: the report as JSON")
    .action((options: EnvironmentFlags & { projects?: boolean; deep?: boolean | string; json?: boolean }) => {
      const environment =
        (typeof options.deep === "string" ? options.deep : undefined) ?? environmentOf(options);
      found({
        kind: "diagnose",
        ...(environment === undefined ? {} : { environment }),
        ...(options.projects === true ? { projects: true as const } : {}),
        ...(options.deep === undefined ? {} : { deep: true as const }),
        ...(options.json === true ? { json: true as const } : {}),
      });
    });

  environmentFlags(
    program
      .command("pair")
      .description("save a read-only token for an environment; the pairing code is read from stdin"),
  )
    .option("--also <write,ops>", "also renew write.json's and ops.json's token", valueOnce("--also"))
    .action((options: EnvironmentFlags & { also?: string }) => {
      const environment = environmentOf(options);
      if (environment === undefined) {
        throw usageProblem("pair needs --environment <alias or environmentId>");
      }
      found({ kind: "pair", environment, ...alsoOf(options.also) });
    });
}

/** `oauth sessions`, `oauth revoke <id>`, `oauth revoke-all`, `oauth enroll`. */
function defineOauthCommands(program: Command, found: (command: CliCommand) => void): void {
  const oauth = program.command("oauth").description("list or end the OAuth sessions of serve --http");
  oauth
    .command("sessions")
    .description("list the OAuth sessions (JSON)")
    .action(() => found({ kind: "oauth", action: "sessions" }));
  oauth
    .command("revoke-all")
    .description("end every OAuth session")
    .action(() => found({ kind: "oauth", action: "revoke-all" }));
  oauth
    .command("enroll")
    .description("print a one-time code that adds a passkey on another device (a phone), valid 10 minutes")
    .action(() => found({ kind: "oauth", action: "enroll" }));
  oauth
    .command("passkeys")
    .description("list the passkeys that sign in and approve from afar (JSON)")
    .action(() => found({ kind: "oauth", action: "passkeys" }));
  oauth
    .command("remove-passkey [id]")
    .description("remove one passkey (its id from oauth passkeys); the last one only with --force")
    .option("--force", "remove it even if it is the last one")
    // A passkey id is base64url, so one in 64 starts with "-": taken as written, not as a flag.
    .allowUnknownOption()
    .action((id: string | undefined, flags: { force?: boolean }) => {
      if (id === undefined)
        throw usageProblem("oauth remove-passkey needs a passkey id (see oauth passkeys)");
      found({ kind: "oauth", action: "remove-passkey", id, force: flags.force === true });
    });
  oauth
    .command("revoke [id]")
    .description("end one OAuth session (its id from oauth sessions)")
    .action((id: string | undefined) => {
      if (id === undefined) throw usageProblem("oauth revoke needs a session id (see oauth sessions)");
      found({ kind: "oauth", action: "revoke", id });
    });
}

type AddFlags = { url?: string; ssh?: string; remotePort?: string; projects?: string; also?: string };

/** `--also`, spread into a command: absent when not given, `[]` for `none`. */
function alsoOf(value: string | undefined): { also?: OperateConfigName[] } {
  const also = parseAlsoOption(value);
  return also === undefined ? {} : { also };
}

interface EnvironmentFlags {
  environment?: string;
  ambiente?: string;
}

/** `--environment X` (or `--environment=X`, or the Portuguese `--ambiente X`), at most once. */
function environmentFlags(command: Command): Command {
  return command
    .option("--environment <alias>", "an alias or an environmentId", valueOnce("--environment"))
    .addOption(new Option("--ambiente <alias>").hideHelp().argParser(valueOnce("--ambiente")));
}

function environmentOf(options: EnvironmentFlags): string | undefined {
  if (options.environment !== undefined && options.ambiente !== undefined) {
    throw usageProblem("--environment given twice");
  }
  return options.environment ?? options.ambiente;
}

function requireAlias(sub: "add" | "remove" | "move", alias: string | undefined): string {
  if (alias === undefined) {
    throw usageProblem(`environments ${sub} needs an alias, e.g. environments ${sub} laptop`);
  }
  return alias;
}

function projectsOption(projects: string | undefined): ProjectsOption | undefined {
  if (projects === undefined) return undefined;
  if (projects === "all") return { all: true };
  const ids = projects.split(",").map((id) => id.trim());
  if (ids.some((id) => id === "")) {
    throw usageProblem("--projects takes all or a comma-separated list of projectIds");
  }
  return { ids };
}
