/**
 * `t3-connector-write`: the write side's command line. Machine output (JSON) goes to stdout;
 * messages, the gate's URL and its one-time enrollment code go to stderr (the gate's terminal).
 */

import {
  answerCommandLine,
  CLIENT_NAMES,
  type CliIo,
  describeError,
  EXIT_CODES,
  exitCodeOf,
  isCommandLineExtra,
  keepConsoleOffStdout,
  type LogLevel,
  leveledLog,
  processIo,
} from "@t3-connector/core/cli-support";
import { noEnvironmentsMessage } from "@t3-connector/core/config";
import { installProcessGuard } from "@t3-connector/core/process-guard";
import { parseCliArgs } from "./process/cli-args.js";
import { loadCliWriteConfig, packageVersion } from "./process/cli-io.js";

export const CLI_NAME = "t3-connector-write";

// The commands are declared in ./process/cli-args.ts (how to add one is at its top); keep this text in step.
export const USAGE = `Usage: ${CLI_NAME} <command>   (${CLI_NAME} <command> --help: that command's own help)

Commands:
  gate [--log-level L] [--enroll]
                           Run the approval page and the write relay on 127.0.0.1 (Ctrl-C stops it);
                           the URL is printed at every level, the one-time enrollment code only while
                           no passkey is enrolled or with --enroll (which lets it add another passkey)
  bridge [--log-level L]   Serve the write tools over MCP stdio; every call is relayed to the gate
                           (L: error, warn, info (default) or debug)
  environments add <alias> (--url URL | --ssh HOST[:PORT]) [--token-file F] [--environment-id ID]
                           Pair a new environment for writes (pairing code on stdin or at the prompt),
                           write its operate token and write.json, verify it
  environments remove <alias>
                           Take an environment out of write.json and delete its token file
  environments move <alias> (--url URL | --ssh HOST[:PORT])
                           Point an environment at its new address: the server there must announce
                           the same environmentId; its token is kept, no pairing code is spent
  client-config <client>   Print the config that starts the bridge in an MCP client, with this
                           machine's paths: ${CLIENT_NAMES.join(", ")}
  diagnose [--environment X] [--projects] | diagnose --deep X [--json]
                           Per environment: identity, token scopes and expiry, projects (JSON);
                           --projects lists each environment's projects
  pair --environment X     Save a read + operate token for X; the pairing code is read from stdin
  reconcile (--operation ID | --all-uncertain) [--environment X] [--json] [--resend]
                           Settle uncertain writes by reading T3; prints what each became; exit 1 if any stays
                           uncertain. --resend (gate stopped): print what would be sent, then send the same command
                           again under the same ids where T3 shows no effect (T3 applies it at most once)
  journal verify [--json]  Check every journal file and record (the gate refuses to start on a damaged journal);
                           exit 1 if anything is missing, truncated or altered
  journal recover --accept-loss [--json]
                           Rebuild a damaged journal from what survives; lost operations are then refused
                           (operation_lost), never sent again; recorded in the audit log
  journal accept-unknown-loss --checked-t3 [--json]
                           After a loss the journal cannot name and a check of T3, let new operationIds
                           through again; what the audit log names stays refused; recorded in the audit log

Options:
  -v, --version Print the version and exit
  -h, --help    Show this help and exit

With no command: this help (on a terminal). Exit codes: 0 ok, 1 unexpected or a verdict (reconcile,
journal verify), 64 usage, 66 not found, 67 refused, 69 unavailable, 75 outcome unknown, 78 config
or token file (docs/cli.md).
The write config is ~/.config/t3-connector/write.json, or the file named by T3_CONNECTOR_WRITE_CONFIG.
`;

/** Exit code of a usage error: the one table of every CLI (docs/cli.md). */
export const USAGE_EXIT_CODE = EXIT_CODES.usage;

export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const command = parseCliArgs(argv);
  if (isCommandLineExtra(command)) {
    const context = { cli: CLI_NAME, usage: USAGE, version: packageVersion, serverCommand: "bridge" };
    return answerCommandLine(command, io, context);
  }
  for (const warning of command.warnings ?? []) io.stderr.write(`${CLI_NAME}: warning: ${warning}\n`);
  // Each command's module is loaded when it runs: help, a typo or --version pay for none of them.
  try {
    switch (command.kind) {
      case "environments-add":
      case "environments-remove":
      case "environments-move":
      case "diagnose":
      case "pair":
        return await (await import("./process/environments-commands.js")).runEnvironmentsCommand(io, command);
      case "reconcile":
        return await (await import("./process/reconcile.js")).reconcileCommand(io, {
          ...(command.environment === undefined ? {} : { environment: command.environment }),
          ...(command.operationId === undefined ? {} : { operationId: command.operationId }),
          allUncertain: command.allUncertain,
          json: command.json,
          resend: command.resend,
        });
      case "journal-verify":
        return await (await import("./process/journal-command.js")).journalVerifyCommand(io, command);
      case "journal-recover":
        return await (await import("./process/journal-command.js")).journalRecoverCommand(io, command);
      case "journal-lift":
        return await (await import("./process/journal-command.js")).journalLiftCommand(io, command);
      case "bridge":
        return await runBridge(io, command.logLevel);
      case "gate":
        return await runGate(io, command.logLevel, command.enroll === true);
      case "client-config":
        return (await import("./process/client-config.js")).clientConfigCommand(io, command.client);
    }
  } catch (error) {
    io.stderr.write(`${CLI_NAME}: ${describeError(error)}\n`);
    return exitCodeOf(error);
  }
}

async function runBridge(io: CliIo, logLevel: LogLevel): Promise<number> {
  // stdout is the MCP protocol from here on: nothing else may write to it. The bridge is
  // loaded only for this command, and it never reads a token file or the journal.
  keepConsoleOffStdout();
  const log = leveledLog((text) => io.stderr.write(text), logLevel);
  // A stray rejection is logged and fails its call, never the session (ADR 0020).
  const guard = installProcessGuard({ processName: `${CLI_NAME} bridge`, log: log.error });
  const { runBridge: startBridge } = await import("@t3-connector/write-bridge");
  const bridge = await startBridge({ log: log.error });
  log.info(`${CLI_NAME} bridge ${packageVersion()}: write tools on MCP stdio, relayed to the gate`);
  const end = await bridge.closed;
  guard.dispose();
  // An over-long message ended the session (its reason is logged): not a clean exit.
  return end.kind === "message_too_large" ? 1 : 0;
}

async function runGate(io: CliIo, logLevel: LogLevel, enroll: boolean): Promise<number> {
  const log = leveledLog((text) => io.stderr.write(text), logLevel);
  // A stray rejection is logged and fails its request, never the gate (ADR 0020).
  const guard = installProcessGuard({ processName: `${CLI_NAME} gate`, log: log.error });
  const config = await loadCliWriteConfig(io);
  // Not a refusal: the page still opens (passkey enrollment needs no environment).
  if (config.environments.length === 0) {
    io.stderr.write(`${CLI_NAME}: ${noEnvironmentsMessage("write", config.path)}\n`);
  }
  const { startGate } = await import("./process/start-gate.js");
  const gate = await startGate({
    config,
    log: log.info,
    announce: (line) => io.stderr.write(`${line}\n`),
    ...(enroll ? { enroll: true } : {}),
    ...(io.fetch ? { fetch: io.fetch } : {}),
  });
  await gate.closed;
  guard.dispose();
  const refusal = gate.refusal();
  return refusal === undefined ? 0 : exitCodeOf(refusal);
}
