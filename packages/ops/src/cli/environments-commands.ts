/**
 * `environments [list]`, `environments add`, `environments remove`, `environments move`: the ops
 * config's environments.
 */
import { transportFromOptions, valueOnce, withTransportOptions } from "@t3-connector/core/cli-support";
import type { Command } from "commander";
import { renderEnvironments } from "../render.js";
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
      const configPath = await session.configPathOf(command);
      const { removeEnvironment } = await import("../environments-remove.js");
      session.done(
        await removeEnvironment(alias, {
          configPath,
          ...(session.io.homeDir === undefined ? {} : { homeDir: session.io.homeDir }),
        }),
      );
    });
};

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
      const configPath = await session.configPathOf(command);
      const { moveEnvironment } = await import("../environments-move.js");
      const { io } = session;
      session.done(
        await moveEnvironment(
          { alias, transport },
          {
            configPath,
            ...(io.homeDir === undefined ? {} : { homeDir: io.homeDir }),
            ...(io.fetch === undefined ? {} : { fetch: io.fetch }),
          },
        ),
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
      const configPath = await session.configPathOf(command);
      const { readPairingCode } = await import("@t3-connector/core/pairing");
      const { addEnvironment } = await import("../environments-add.js");
      const { io } = session;
      const result = await addEnvironment(
        {
          alias,
          transport,
          readCode: () => readPairingCode(io),
          ...(options.tokenFile === undefined ? {} : { tokenFile: options.tokenFile }),
          ...(options.environmentId === undefined ? {} : { environmentId: options.environmentId }),
          ...(options.alias.length === 0 ? {} : { aliases: options.alias }),
          ...(options.insecureHttp === true ? { insecureHttp: true } : {}),
        },
        {
          configPath,
          ...(io.homeDir === undefined ? {} : { homeDir: io.homeDir }),
          ...(io.fetch === undefined ? {} : { fetch: io.fetch }),
        },
      );
      session.done(result);
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
