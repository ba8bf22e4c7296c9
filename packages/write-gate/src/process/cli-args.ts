/**
 * The command line of `t3-connector-write`, parsed into one command (commander, through core's
 * `parseCommandLine`, like every CLI here). Pure, so every spelling is tested without a process.
 *
 * To add a command: declare it in `defineCommands` (`program.command(...).action(... found(...))`),
 * with a `.description` (its own `--help` shows it), add its kind to `CliCommand`, a line to USAGE
 * in ../cli.ts and a case to `runCli`. To add a
 * flag: `.option("--flag <value>", "…", valueOnce("--flag"))` on its command (a switch:
 * `.option("--flag", "…")`). The environments commands (`environments`, `diagnose`, `pair`) are
 * declared once for the three CLIs, in core's cli-support (`defineEnvironmentsCommandLine`).
 */
import {
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
  valueOnce,
  type Warn,
} from "@t3-connector/core/cli-support";
import type { Command } from "commander";

export type CliCommand =
  | CommandLineExtra
  | { kind: "gate"; logLevel: LogLevel; enroll?: true }
  | { kind: "bridge"; logLevel: LogLevel }
  | Exclude<EnvironmentsCliCommand, { kind: "environments" }>
  | { kind: "client-config"; client: string }
  | {
      kind: "reconcile";
      /** Send the journaled command again when T3 shows no effect (a stopped gate only, ADR 0042). */
      resend: boolean;
      environment?: string;
      operationId?: string;
      allUncertain: boolean;
      json: boolean;
    }
  | { kind: "journal-verify"; json: boolean }
  | { kind: "journal-recover"; json: boolean }
  | { kind: "journal-lift"; json: boolean };

export function parseCliArgs(argv: readonly string[]): CliCommand & { warnings?: readonly string[] } {
  return commandOf(
    parseCommandLine(argv, defineCommands, { name: "t3-connector-write", versionFlags: VERSION_FLAGS }),
  );
}

function defineCommands(program: Command, found: (command: CliCommand) => void, warn: Warn): void {
  program
    .command("gate")
    .description("run the approval page and the write relay on 127.0.0.1 (Ctrl-C stops it)")
    .addOption(logLevelOption())
    .option("--enroll", "print an enrollment code even when a passkey is enrolled (to add one)")
    .action((options: { logLevel?: LogLevel; enroll?: boolean }) =>
      found({
        kind: "gate",
        logLevel: options.logLevel ?? DEFAULT_LOG_LEVEL,
        ...(options.enroll === true ? { enroll: true as const } : {}),
      }),
    );
  program
    .command("bridge")
    .description("serve the write tools over MCP stdio; every call is relayed to the gate")
    .addOption(logLevelOption())
    .action((options: { logLevel?: LogLevel }) =>
      found({ kind: "bridge", logLevel: options.logLevel ?? DEFAULT_LOG_LEVEL }),
    );

  // write.json has no listing: its words never parse to `environments` alone.
  const foundEnvironments = (command: EnvironmentsCliCommand) => {
    if (command.kind !== "environments") found(command);
  };
  defineEnvironmentsCommandLine(program, foundEnvironments, { owner: "write", warn });
  defineSetupCommands(program, found);
  defineJournalCommands(program, found);
}

/** `client-config`, `reconcile`. */
function defineSetupCommands(program: Command, found: (command: CliCommand) => void): void {
  program
    .command("client-config [client]")
    .description("print the config that starts the bridge in an MCP client, with this machine's paths")
    .action((client: string | undefined) => {
      if (client === undefined) throw usageProblem("client-config needs a client (see --help)");
      found({ kind: "client-config", client });
    });

  program
    .command("reconcile")
    .description("settle uncertain writes by reading T3; exit 1 if any stays uncertain")
    .option("--operation <id>", "the operationId to settle", valueOnce("--operation"))
    .option("--all-uncertain", "every uncertain write")
    .option("--environment <alias>", "only this environment", valueOnce("--environment"))
    .option("--json", "print JSON")
    .option("--resend", "with the gate stopped: send a write again when T3 shows no effect of it")
    .action(
      (options: {
        operation?: string;
        allUncertain?: boolean;
        environment?: string;
        json?: boolean;
        resend?: boolean;
      }) => {
        const allUncertain = options.allUncertain === true;
        if (options.operation === undefined && !allUncertain) {
          throw usageProblem("reconcile needs --operation ID or --all-uncertain");
        }
        if (options.operation !== undefined && allUncertain) {
          throw usageProblem("--operation and --all-uncertain exclude each other");
        }
        found({
          kind: "reconcile",
          ...(options.environment === undefined ? {} : { environment: options.environment }),
          ...(options.operation === undefined ? {} : { operationId: options.operation }),
          allUncertain,
          json: options.json === true,
          resend: options.resend === true,
        });
      },
    );
}

/**
 * `journal verify [--json]`, `journal recover --accept-loss [--json]` and
 * `journal accept-unknown-loss --checked-t3 [--json]` (ADR 0006 §10–11).
 */
function defineJournalCommands(program: Command, found: (command: CliCommand) => void): void {
  const journal = program
    .command("journal")
    .description("verify the journal, or recover from a damaged one")
    .action(() => {
      throw usageProblem(
        "journal verify [--json], journal recover --accept-loss [--json] or journal accept-unknown-loss --checked-t3 [--json]",
      );
    });
  journal
    .command("verify")
    .description("check every journal file and record; exit 1 if anything is missing, truncated or altered")
    .option("--json", "print JSON")
    .action((options: { json?: boolean }) => found({ kind: "journal-verify", json: options.json === true }));
  journal
    .command("recover")
    .description("rebuild a damaged journal from what survives; lost operations are then refused")
    .option("--accept-loss", "continue without what the journal lost")
    .option("--json", "print JSON")
    .action((options: { acceptLoss?: boolean; json?: boolean }) => {
      if (options.acceptLoss !== true) {
        throw usageProblem(
          "journal recover rebuilds the journal without what it lost: it needs --accept-loss",
        );
      }
      found({ kind: "journal-recover", json: options.json === true });
    });
  journal
    .command("accept-unknown-loss")
    .description("after a loss the journal cannot name and a check of T3, let new operationIds through")
    .option("--checked-t3", "the writes made before the loss were checked in T3")
    .option("--json", "print JSON")
    .action((options: { checkedT3?: boolean; json?: boolean }) => {
      if (options.checkedT3 !== true) {
        throw usageProblem(
          "journal accept-unknown-loss lets new operationIds through after an unknown loss: check in T3 the writes " +
            "`journal verify` lists, then confirm with --checked-t3",
        );
      }
      found({ kind: "journal-lift", json: options.json === true });
    });
}
