import {
  answerCommandLine,
  CLIENT_NAMES,
  type CliIo,
  type CommandLineExtra,
  describeError,
  EXIT_CODES,
  exitCodeOf,
  isCommandLineExtra,
  processIo,
} from "@t3-connector/core/cli-support";
import type { CliCommand } from "./cli/args.js";
import { bareServe } from "./cli/bare-serve.js";
import { packageInfo } from "./package-info.js";
import type { ReadToolDefinition } from "./read-tool.js";
import { READ_SERVER_NAME } from "./server-name.js";

// The commands are declared in ./cli/args.ts (how to add one is at its top); keep this text in step.
export const USAGE = `Usage: ${READ_SERVER_NAME} <command>   (${READ_SERVER_NAME} <command> --help: that command's own help)

Commands:
  serve [--log-level L]        Run the read-only MCP server over stdio;
                               L is error, warn, info (default) or debug
  serve --http [--host H] [--port P] [--auth-token-file F] [--allowed-host N]... [--allowed-origin O]...
                               The same read tools over MCP Streamable HTTP at /mcp, with /healthz
                               and /readyz; H defaults to 127.0.0.1, P to 8000. F (mode 600) holds
                               the bearer token, required when H is not loopback. Prints one JSON
                               line with the URL on stdout when ready (docs/adr/0014)
  environments [list]          Print the configured environments and whether each answers (JSON)
  environments add <alias> (--url URL | --ssh HOST[:PORT]) [--projects all|ID,ID] [--also write,ops|none]
                   [--token-file F] [--environment-id ID]
                               Pair a new environment (pairing code or URL on stdin, or at the
                               prompt), pick its projects, write the token and the config, verify.
                               --also (asked on a terminal) fills write.json and ops.json too, with
                               an operate token from a second code (stdin: one code per line)
  environments remove <alias>  Take an environment out of the config and delete its token file
  environments move <alias> (--url URL | --ssh HOST[:PORT])
                               Point an environment at its new address: the server there must
                               announce the same environmentId; the token and projects are kept,
                               no pairing code is spent; then verify
  diagnose [--environment X] [--projects]
                               Check identity, token scopes and expiry, projects and visible
                               threads (JSON); --projects lists each environment's projects
  diagnose --deep X [--json]   Probe, read-only, every assumption the connector makes about X's
                               server: held, differs or unknown (no secret in it)
  pair --environment X [--also write,ops]
                               Save a read-only token for X; the pairing code is read from stdin.
                               --also renews the operate token that write.json and ops.json name
                               for X too, from a second code (one code per line)
  client-config <client>       Print the config that starts this server in an MCP client, with this
                               machine's paths: ${CLIENT_NAMES.join(", ")}
  client-config <client> --http [--url U]
                               Print the config that reaches a running serve --http: with an
                               oauth config section, its issuer's /mcp (clients sign in by
                               OAuth); else U (default http://127.0.0.1:8000/mcp) with a token
  oauth sessions | revoke <id> | revoke-all
                               List or end the OAuth sessions of serve --http (JSON); effective
                               on the server's next request (docs/adr/0024)
  oauth enroll                 Print a one-time code (10 min) that adds a passkey on another
                               device, e.g. a phone, on the approval page (docs/adr/0050)
  oauth passkeys | remove-passkey <id> [--force]
                               List or remove the passkeys that sign in and approve from afar;
                               the last one only with --force
  events --hook-url URL --hook-secret-file F [--state-dir D] [--environment L] [--project L]
         [--type L] [--max-attempts N] [--max-age-hours H] [--retry-base-ms MS]
                               POST signed run and thread events (Standard Webhooks) to URL until stopped
  events status [--state-dir D]  Outbox depth, last success and dead letters (JSON)
  events retry <id> [--state-dir D]  Move a dead letter back to the outbox

Options:
  -v, --version Print the version and exit
  -h, --help    Show this help and exit

With no command: this help (on a terminal). Exit codes: 0 ok, 1 unexpected, 64 usage, 66 not found,
67 refused, 69 unavailable, 75 outcome unknown, 78 config or token file (docs/cli.md).
The read config is ~/.config/t3-connector/config.json, or the file named by T3_CONNECTOR_CONFIG.
`;

/** Exit code of a usage error: the one table of every CLI (docs/cli.md). */
export const USAGE_EXIT_CODE = EXIT_CODES.usage;

/**
 * Runs the `t3-connector` command line and resolves with the exit code. `serve` resolves only when
 * the MCP session ends (stdin closed or a termination signal). Machine output goes to stdout as
 * JSON; messages and errors go to stderr. `definitions` defaults to every read tool, loaded only
 * when `serve` runs.
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo = processIo(),
  definitions?: readonly ReadToolDefinition[],
): Promise<number> {
  // The parser (commander and every command's flags) loads only for a line other than bare `serve`.
  const command = bareServe(argv) ?? (await import("./cli/args.js")).parseCliArgs(argv);
  if (isCommandLineExtra(command)) {
    const version = () => packageInfo().version;
    return answerCommandLine(command, io, {
      cli: READ_SERVER_NAME,
      usage: USAGE,
      version,
      serverCommand: "serve",
    });
  }
  for (const warning of command.warnings ?? []) io.stderr.write(`${READ_SERVER_NAME}: warning: ${warning}\n`);
  try {
    return await runCommand(command, io, definitions);
  } catch (error) {
    io.stderr.write(`${READ_SERVER_NAME}: ${describeError(error)}\n`);
    return exitCodeOf(error);
  }
}

type ParsedCommand = Exclude<CliCommand, CommandLineExtra>;

/**
 * Each command's module is loaded when it runs (as in t3-connector-write): help, a typo or
 * `--version` load none of them, nor the MCP SDK and the read tools they import.
 */
async function runCommand(
  command: ParsedCommand,
  io: CliIo,
  definitions: readonly ReadToolDefinition[] | undefined,
): Promise<number> {
  switch (command.kind) {
    case "serve":
      return await runServe(command, io, definitions);
    case "environments":
      return await (await import("./cli/environments.js")).environmentsCommand(io);
    case "environments-add":
    case "environments-remove":
    case "environments-move":
    case "diagnose":
    case "pair":
      return await (await import("./cli/environments-commands.js")).runEnvironmentsCommand(io, command);
    case "client-config":
      return (await import("./cli/client-config.js")).clientConfigCommand(io, command.client, command.http);
    case "events":
      return await (await import("./cli/events.js")).eventsCommand(io, command.request);
    case "events-status":
      return await (await import("./cli/events.js")).eventsStatusCommand(io, command.stateDir);
    case "oauth":
      return await (await import("./cli/oauth-sessions.js")).oauthSessionsCommand(io, command);
    case "events-retry":
      return await (await import("./cli/events.js")).eventsRetryCommand(io, command.id, command.stateDir);
  }
}

/**
 * `serve` over stdio, or `serve --http` (Hono and the HTTP transport only then). Without given
 * definitions, stdio serves the read tools' catalog, which loads each tool at its first call (a
 * spawned server's first answer, docs/adr/0060); `--http`, a long-lived server, loads them all.
 */
async function runServe(
  command: Extract<ParsedCommand, { kind: "serve" }>,
  io: CliIo,
  definitions: readonly ReadToolDefinition[] | undefined,
): Promise<number> {
  if (command.http !== undefined) {
    const { serveHttp } = await import("./http/serve-http.js");
    const { eventsFromConfig } = await import("./cli/events-in-serve.js");
    return await serveHttp(
      io,
      definitions ?? (await import("./read-tool-json-schemas.js")).readToolsWithKnownJsonSchemas(),
      command.http,
      { logLevel: command.logLevel, services: eventsFromConfig(io) },
    );
  }
  const { serve } = await import("./cli/serve.js");
  return await serve(
    io,
    definitions ?? (await import("./read-tool-catalog.js")).readToolCatalog(),
    command.logLevel,
  );
}
