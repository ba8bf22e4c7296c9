/**
 * The command line of `t3-connector`, parsed into one command (commander, through core's
 * `parseCommandLine`, like every CLI here). Pure, so every spelling is tested without a process.
 *
 * To add a command: declare it in `defineCommands` (`program.command(...).action(... found(...))`),
 * with a `.description` (its own `--help` shows it), add its kind to `CliCommand`, a line to USAGE
 * in ../cli.ts and a case to `runCli`. To add a
 * flag: `.option("--flag <value>", "…", valueOnce("--flag"))` on its command. The environments
 * commands (`environments`, `diagnose`, `pair`) are declared once for the three CLIs, in core's
 * cli-support (`defineEnvironmentsCommandLine`): their flags are added there.
 */
import {
  CLIENT_NAMES,
  type CommandLineExtra,
  commandOf,
  DEFAULT_LOG_LEVEL,
  defineEnvironmentsCommandLine,
  type EnvironmentsCliCommand,
  type LogLevel,
  logLevelOption,
  parseCommandLine,
  usageProblem,
  VERSION_FLAGS,
  type Warn,
} from "@t3-connector/core/cli-support";
import type { Command } from "commander";
import {
  clientConfigHttpOf,
  type HttpServeFlags,
  httpServeOptionsOf,
  withClientConfigHttpOptions,
  withHttpServeOptions,
} from "../http/http-args.js";
import type { HttpServeOptions } from "../http/http-options.js";
import { defineEventsCommands, type EventsCliCommand } from "./events-args.js";

export type CliCommand =
  | { kind: "serve"; logLevel: LogLevel; http?: HttpServeOptions }
  | EnvironmentsCliCommand
  | { kind: "client-config"; client: string; http?: { url?: string } }
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

  defineEnvironmentsCommandLine(program, found, { owner: "read", warn });
  defineSetupCommands(program, found);
  defineEventsCommands(program, found);
  defineOauthCommands(program, found);
}

/** `client-config`. */
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
