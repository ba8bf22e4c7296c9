/** `environments [list]`, `environments add`, `environments remove`: the ops config's environments. */
import { ConnectorError } from "@t3-connector/core";
import type { Command } from "commander";
import { renderEnvironments } from "../render.js";
import type { RegisterCommand } from "./command-table.js";
import { EXAMPLES } from "./examples.js";
import type { CliSession } from "./session.js";

export const registerEnvironmentCommands: RegisterCommand = (program, session) => {
  const environments = program
    .command("environments")
    .description("list the configured environments (probing each), or add one")
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

function registerAdd(environments: Command, session: CliSession): void {
  environments
    .command("add <alias>")
    .description(
      "probe a server, pair for read + operate with a code from stdin, save the token and the config",
    )
    .option("--url <url>", "https URL (plain http: loopback, or with --insecure-http)")
    .option("--ssh <host>", "reach the server through an ssh tunnel to this host")
    .option("--remote-port <port>", "T3's port on the ssh host (default 3773)")
    .requiredOption("--token-file <path>", "where the operate token is saved (absolute or ~/)")
    .option("--environment-id <id>", "expected environmentId (required with --ssh)")
    .option(
      "--alias <name>",
      "an extra name for this environment (repeatable)",
      (v: string, p: string[]) => [...p, v],
      [],
    )
    .option("--insecure-http", "allow plain http to another host (a network that encrypts by itself)")
    .addHelpText("after", EXAMPLES.environments)
    .action(async (alias: string, options, command: Command) => {
      const configPath = await session.configPathOf(command);
      if ((options.url === undefined) === (options.ssh === undefined)) {
        throw new ConnectorError("invalid_input", "give exactly one of --url and --ssh");
      }
      const { readPairingCode } = await import("@t3-connector/core/pairing");
      const { addEnvironment } = await import("../environments-add.js");
      const code = await readPairingCode(session.io);
      const { io } = session;
      const result = await addEnvironment(
        {
          alias,
          tokenFile: options.tokenFile,
          code,
          ...(options.url === undefined ? {} : { url: options.url }),
          ...(options.ssh === undefined ? {} : { ssh: sshTarget(options.ssh, options.remotePort) }),
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

function sshTarget(host: string, remotePort: string | undefined): { host: string; remotePort?: number } {
  return { host, ...(remotePort === undefined ? {} : { remotePort: Number(remotePort) }) };
}
