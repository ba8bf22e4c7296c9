import { CLIENT_NAMES } from "@t3-connector/core/cli-support";
import { parseCliArgs } from "./cli/args.js";
import { clientConfigCommand } from "./cli/client-config.js";
import { diagnoseCommand } from "./cli/diagnose.js";
import { environmentsCommand } from "./cli/environments.js";
import { addEnvironmentCommand, removeEnvironmentCommand } from "./cli/environments-edit.js";
import { type CliIo, describeError, processIo } from "./cli/io.js";
import { pairCommand } from "./cli/pair.js";
import { serve } from "./cli/serve.js";
import { packageInfo } from "./package-info.js";
import type { ReadToolDefinition } from "./read-tool.js";
import { READ_SERVER_NAME } from "./server.js";
import { readToolDefinitions } from "./tools/index.js";

export type { CliIo } from "./cli/io.js";

// The commands are declared in ./cli/args.ts (how to add one is at its top); keep this text in step.
export const USAGE = `Usage: ${READ_SERVER_NAME} [command]

Commands:
  serve [--log-level L]        Run the read-only MCP server over stdio (the default);
                               L is error, warn, info (default) or debug
  environments                 Print the configured environments and whether each answers (JSON)
  environments add <alias> (--url URL | --ssh HOST[:PORT]) [--projects all|ID,ID]
                               Pair a new environment (pairing code or URL on stdin, or at the
                               prompt), pick its projects, write the token and the config, verify
  environments remove <alias>  Take an environment out of the config and delete its token file
  diagnose [--environment X]   Check identity, token scopes and expiry, projects and visible threads (JSON)
  pair --environment X         Save a read-only token for X; the pairing code is read from stdin
  client-config <client>       Print the config that starts this server in an MCP client, with this
                               machine's paths: ${CLIENT_NAMES.join(", ")}

Options:
  --version     Print the version and exit
  -h, --help    Show this help and exit

The read config is ~/.config/t3-connector/config.json, or the file named by T3_CONNECTOR_CONFIG.
`;

/** Exit code of a usage error, as for most Unix tools. */
export const USAGE_EXIT_CODE = 2;

/**
 * Runs the `t3-connector` command line and resolves with the exit code. `serve` resolves only when
 * the MCP session ends (stdin closed or a termination signal). Machine output goes to stdout as
 * JSON; messages and errors go to stderr.
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo = processIo(),
  definitions: readonly ReadToolDefinition[] = readToolDefinitions,
): Promise<number> {
  const command = parseCliArgs(argv);
  try {
    switch (command.kind) {
      case "version":
        io.stdout.write(`${packageInfo().version}\n`);
        return 0;
      case "help":
        io.stdout.write(USAGE);
        return 0;
      case "usage-error":
        io.stderr.write(`${READ_SERVER_NAME}: ${command.problem}\n\n${USAGE}`);
        return USAGE_EXIT_CODE;
      case "serve":
        return await serve(io, definitions, command.logLevel);
      case "environments":
        return await environmentsCommand(io);
      case "environments-add":
        return await addEnvironmentCommand(io, command.request);
      case "environments-remove":
        return await removeEnvironmentCommand(io, command.alias);
      case "client-config":
        return clientConfigCommand(io, command.client);
      case "diagnose":
        return await diagnoseCommand(io, command.environment);
      case "pair":
        return await pairCommand(io, command.environment);
    }
  } catch (error) {
    io.stderr.write(`${READ_SERVER_NAME}: ${describeError(error)}\n`);
    return 1;
  }
}
