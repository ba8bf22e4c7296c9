/**
 * `environments [list]`, `environments add`, `environments remove`, `environments move`, `diagnose`
 * and `pair`: the ops config's environments. All but the listing are the one environments command
 * of the three CLIs (core's pairing, ADR 0058).
 */
import {
  transportFromOptions,
  usageProblem,
  valueOnce,
  withTransportOptions,
} from "@t3-connector/core/cli-support";
import type { EnvironmentsCommandContext, EnvironmentsReport } from "@t3-connector/core/pairing";
import type { Command } from "commander";
import { renderEnvironments, renderValue } from "../render.js";
import type { RegisterCommand } from "./command-table.js";
import { EXAMPLES } from "./examples.js";
import type { CliSession } from "./session.js";

export const registerEnvironmentCommands: RegisterCommand = (program, session) => {
  const environments = program
    .command("environments")
    .description("list the configured environments (probing each), or add, remove or move one")
    .addHelpText("after", EXAMPLES.environments);
  environments
    .command("list", { isDefault: true })
    .description("list the configured environments and probe each")
    .action(async (_options, command: Command) => {
      const opened = await session.openOps(command);
      if (opened.environments.config.environments.length === 0) await session.hintNoEnvironments(opened);
      session.done(await opened.environmentStatus(), renderEnvironments);
    });
  registerAdd(environments, session);
  registerMove(environments, session);
  environments
    .command("remove <alias>")
    .description("take an environment out of the ops config and delete its token file")
    .action(async (alias: string, _options, command: Command) => {
      await runShared(session, command, (shared, context) => shared.removeCommand(context, { alias }));
    });
  registerDiagnoseAndPair(program, session);
};

type Shared = typeof import("@t3-connector/core/pairing");

/**
 * Runs one command of the shared environments command (core's pairing, ADR 0058) over ops.json
 * (`--config`, else the default path) and leaves its report, JSON on a terminal too, and its exit code.
 */
async function runShared(
  session: CliSession,
  command: Command,
  run: (shared: Shared, context: EnvironmentsCommandContext) => Promise<EnvironmentsReport>,
): Promise<void> {
  const { config } = session.globals(command);
  const shared = await import("@t3-connector/core/pairing");
  const { OPS_CONFIG } = await import("../config-kind.js");
  const context = {
    kind: OPS_CONFIG,
    io: session.io,
    ...(config === undefined ? {} : { configPath: config }),
  };
  const report: EnvironmentsReport & { text?: string } = await run(shared, context);
  // A report with words for a terminal (`diagnose --deep`) shows them there; --json keeps the value.
  const text = report.text;
  session.done(report.value, text === undefined ? renderValue : () => text, report.exitCode);
}

/**
 * `diagnose [--environment X] [--projects]` and `pair --environment X`, as the read and write CLIs
 * spell them; as every ops command, the environment may also come first or with --env.
 */
function registerDiagnoseAndPair(program: Command, session: CliSession): void {
  program
    .command("diagnose")
    .description("per environment (or the one named): identity, token scopes and expiry, projects (JSON)")
    .option("--environment <alias>", "only this environment (alias, extra alias or environmentId)")
    .option("--projects", "list each environment's projects")
    .option("--deep [environment]", "probe one environment's every assumption, read-only (a report)")
    .addHelpText("after", EXAMPLES.environments)
    .action(
      async (
        options: { environment?: string; projects?: boolean; deep?: boolean | string },
        command: Command,
      ) => {
        const named = typeof options.deep === "string" ? options.deep : undefined;
        const environment = named ?? options.environment ?? session.globals(command).env;
        await runShared(session, command, (shared, context) =>
          options.deep === undefined
            ? shared.diagnoseCommand(context, { environment, projects: options.projects === true })
            : shared.deepDiagnoseCommand(context, shared.deepRequestOf({ environment, deep: true })),
        );
      },
    );
  program
    .command("pair")
    .description("save a new read + operate token for an environment; the pairing code is read from stdin")
    .option("--environment <alias>", "the environment (alias, extra alias or environmentId)")
    .addHelpText("after", EXAMPLES.environments)
    .action(async (options: { environment?: string }, command: Command) => {
      const environment = options.environment ?? session.globals(command).env;
      if (environment === undefined)
        throw usageProblem("pair needs --environment X (or t3-connector-ops X pair)");
      await runShared(session, command, (shared, context) => shared.pairCommand(context, { environment }));
    });
}

function registerMove(environments: Command, session: CliSession): void {
  withTransportOptions(
    environments
      .command("move <alias>")
      .description("point an environment at its new address (same environmentId), keeping its token"),
  ).action(
    async (alias: string, options: { url?: string; ssh?: string; remotePort?: string }, command: Command) => {
      const transport = transportFromOptions(
        options,
        (message) => session.warn(message),
        "environments move",
      );
      await runShared(session, command, (shared, context) =>
        shared.moveCommand(context, { alias, transport }),
      );
    },
  );
}

function registerAdd(environments: Command, session: CliSession): void {
  withTransportOptions(
    environments
      .command("add <alias>")
      .description(
        "probe a server, pair for read + operate with a code from stdin, save the token and the config",
      ),
  )
    .option(
      "--token-file <path>",
      "where the operate token is saved (default tokens/<alias>.ops.token beside ops.json)",
      valueOnce("--token-file"),
    )
    .option("--environment-id <id>", "the environmentId expected (the server must announce it)")
    .option(
      "--alias <name>",
      "an extra name for this environment (repeatable)",
      (v: string, p: string[]) => [...p, v],
      [],
    )
    .option("--insecure-http", "allow plain http to another host (a network that encrypts by itself)")
    .addHelpText("after", EXAMPLES.environments)
    .action(async (alias: string, options: AddOptions, command: Command) => {
      const transport = transportFromOptions(options, (message) => session.warn(message));
      const request = {
        alias,
        transport,
        ...(options.tokenFile === undefined ? {} : { tokenFile: options.tokenFile }),
        ...(options.environmentId === undefined ? {} : { environmentId: options.environmentId }),
        ...(options.alias.length === 0 ? {} : { aliases: options.alias }),
        ...(options.insecureHttp === true ? { insecureHttp: true } : {}),
      };
      await runShared(session, command, (shared, context) => shared.addCommand(context, request));
    });
}

interface AddOptions {
  url?: string;
  ssh?: string;
  remotePort?: string;
  tokenFile?: string;
  environmentId?: string;
  alias: string[];
  insecureHttp?: boolean;
}
