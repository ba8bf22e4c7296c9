/**
 * The command-line words of the one environments command (ADR 0058), declared once for the three
 * CLIs: `environments [list]`, `environments add|remove|move`, `diagnose` and `pair`. Each CLI
 * calls `defineEnvironmentsCommandLine` with its file's owner; what differs between the files
 * (which flags `add` takes, the words of the help) is the table below, not a second declaration.
 *
 * To add a flag to one of these commands: declare it here, carry it in `EnvironmentsCliCommand`
 * and read it in `runEnvironmentsCommand` (core's pairing/command/cli-commands.ts). The three
 * CLIs then take it alike.
 *
 * Pure parsing: this module loads no pairing code, so a CLI parses its command line without it.
 */
import { type Command, Option } from "commander";
import type {
  AddEnvironmentRequest,
  DiagnoseRequest,
  MoveRequest,
  PairRequest,
  ProjectsOption,
  RemoveRequest,
} from "../pairing/command/requests.js";
import { OPERATE_CONFIG_NAMES, type OperateConfigName } from "../pairing/operate-config-names.js";
import {
  transportFromOptions,
  usageProblem,
  valueOnce,
  type Warn,
  withTransportOptions,
} from "./command-line.js";

/** Which file the CLI's environments commands edit: the read config, write.json or ops.json. */
export type EnvironmentsOwner = "read" | "write" | "ops";

/** What the environments words parse into, the same in the three CLIs. */
export type EnvironmentsCliCommand =
  | { kind: "environments" }
  | { kind: "environments-add"; request: AddEnvironmentRequest }
  | ({ kind: "environments-remove" } & RemoveRequest)
  | ({ kind: "environments-move" } & MoveRequest)
  | ({ kind: "diagnose" } & DiagnoseRequest)
  | ({ kind: "pair" } & PairRequest);

export const ENVIRONMENTS_CLI_KINDS: ReadonlySet<string> = new Set([
  "environments",
  "environments-add",
  "environments-remove",
  "environments-move",
  "diagnose",
  "pair",
]);

/** Whether a parsed command is one of the environments commands. */
export function isEnvironmentsCliCommand(command: { kind: string }): command is EnvironmentsCliCommand {
  return ENVIRONMENTS_CLI_KINDS.has(command.kind);
}

/** What differs between the three files' words. */
interface OwnerWords {
  /** The file as the help names it. */
  file: string;
  /** The token `add` and `pair` save. */
  token: string;
  /** Whether the CLI lists its environments (`environments`, `environments list`). */
  lists: boolean;
  /** The read CLI: `--projects` and `--also` on add, `--also` on pair. */
  readFlags: boolean;
  /** ops: `--alias` and `--insecure-http` on add (ops.json's own keys). */
  opsFlags: boolean;
  /** The read CLI's names of the previous contract: `ambientes`, `diagnostico`, `--ambiente`. */
  portugueseAliases: boolean;
  /** What diagnose checks, in its help. */
  diagnoses: string;
}

const OWNERS: Record<EnvironmentsOwner, OwnerWords> = {
  read: {
    file: "the read config",
    token: "read-only token",
    lists: true,
    readFlags: true,
    opsFlags: false,
    portugueseAliases: true,
    diagnoses: "identity, token scopes and expiry, projects and visible threads (JSON)",
  },
  write: {
    file: "write.json",
    token: "read + operate token",
    lists: false,
    readFlags: false,
    opsFlags: false,
    portugueseAliases: false,
    diagnoses: "identity, token scopes and expiry, projects (JSON)",
  },
  ops: {
    file: "the ops config",
    token: "read + operate token",
    lists: true,
    readFlags: false,
    opsFlags: true,
    portugueseAliases: false,
    diagnoses: "identity, token scopes and expiry, projects (JSON)",
  },
};

export interface EnvironmentsCommandLineOptions {
  owner: EnvironmentsOwner;
  /** A deprecated spelling was accepted (`--remote-port`). */
  warn?: Warn;
  /** ops: the environment named before the command or with `--env` stands for `--environment`. */
  environmentFallback?: (command: Command) => string | undefined;
  /** Examples shown after each command's own help. */
  examples?: string;
}

/**
 * Declares the environments commands on `program`. `found` receives each parsed command with the
 * commander command it came from; it may return a promise (ops runs the command there).
 */
export function defineEnvironmentsCommandLine(
  program: Command,
  found: (command: EnvironmentsCliCommand, from: Command) => void | Promise<void>,
  options: EnvironmentsCommandLineOptions,
): void {
  const words = OWNERS[options.owner];
  const context = { words, found, options, warn: options.warn ?? (() => {}) };
  const environments = withExamples(
    program
      .command("environments")
      .description(
        words.lists
          ? "list the configured environments (probing each), or add, remove or move one"
          : `add, remove or move an environment of ${words.file}`,
      ),
    options.examples,
  );
  if (words.portugueseAliases) environments.alias("ambientes");
  if (words.lists) {
    environments.action((_flags: unknown, from: Command) => found({ kind: "environments" }, from));
    environments
      .command("list")
      .description("list the configured environments and probe each (JSON)")
      .action((_flags: unknown, from: Command) => found({ kind: "environments" }, from));
  } else {
    environments.action(() => {
      throw usageProblem(
        "environments add <alias> (--url URL | --ssh HOST[:PORT]), environments remove <alias> " +
          "or environments move <alias> (--url URL | --ssh HOST[:PORT])",
      );
    });
  }
  defineAdd(environments, context);
  environments
    .command("remove [alias]")
    .description(`take an environment out of ${words.file} and delete its token file`)
    .action((alias: string | undefined, _flags: unknown, from: Command) =>
      found({ kind: "environments-remove", alias: requireAlias("remove", alias) }, from),
    );
  withTransportOptions(
    environments
      .command("move [alias]")
      .description("point an environment at its new address (same environmentId), keeping its token"),
  ).action((alias: string | undefined, flags: TransportFlags, from: Command) =>
    found(
      {
        kind: "environments-move",
        alias: requireAlias("move", alias),
        transport: transportFromOptions(flags, context.warn, "environments move"),
      },
      from,
    ),
  );
  defineDiagnose(program, context);
  definePair(program, context);
}

interface Context {
  words: OwnerWords;
  found: (command: EnvironmentsCliCommand, from: Command) => void | Promise<void>;
  options: EnvironmentsCommandLineOptions;
  warn: Warn;
}

type TransportFlags = { url?: string; ssh?: string; remotePort?: string };

interface AddFlags extends TransportFlags {
  projects?: string;
  also?: string;
  tokenFile?: string;
  environmentId?: string;
  alias?: string[];
  insecureHttp?: boolean;
}

function defineAdd(environments: Command, { words, found, options, warn }: Context): void {
  const add = withTransportOptions(
    environments
      .command("add [alias]")
      .description(
        `pair a new environment (pairing code on stdin or at the prompt), save its ${words.token}${
          words.readFlags ? ", pick its projects" : ""
        }, verify it`,
      ),
  )
    .option(
      "--token-file <path>",
      `where the token is saved (default tokens/<alias>.<kind>.token beside ${words.file})`,
      valueOnce("--token-file"),
    )
    .option(
      "--environment-id <id>",
      "the environmentId expected (the server must announce it)",
      valueOnce("--environment-id"),
    );
  if (words.readFlags) {
    add
      .option("--projects <all|ids>", "all, or a comma-separated list of projectIds", valueOnce("--projects"))
      .option("--also <write,ops|none>", "also fill write.json and ops.json", valueOnce("--also"));
  }
  if (words.opsFlags) {
    add
      .option(
        "--alias <name>",
        "an extra name for this environment (repeatable)",
        (v: string, p: string[]) => [...p, v],
        [],
      )
      .option("--insecure-http", "allow plain http to another host (a network that encrypts by itself)");
  }
  withExamples(add, options.examples).action((alias: string | undefined, flags: AddFlags, from: Command) => {
    const projects = projectsOption(flags.projects);
    const also = parseAlsoOption(flags.also);
    const request: AddEnvironmentRequest = {
      alias: requireAlias("add", alias),
      transport: transportFromOptions(flags, warn),
      ...(projects === undefined ? {} : { projects }),
      ...(also === undefined ? {} : { also }),
      ...(flags.tokenFile === undefined ? {} : { tokenFile: flags.tokenFile }),
      ...(flags.environmentId === undefined ? {} : { environmentId: flags.environmentId }),
      ...(flags.alias === undefined || flags.alias.length === 0 ? {} : { aliases: flags.alias }),
      ...(flags.insecureHttp === true ? { insecureHttp: true } : {}),
    };
    return found({ kind: "environments-add", request }, from);
  });
}

interface EnvironmentFlags {
  environment?: string;
  ambiente?: string;
}

function defineDiagnose(program: Command, context: Context): void {
  const diagnose = program.command("diagnose").description(`per environment: ${context.words.diagnoses}`);
  if (context.words.portugueseAliases) diagnose.alias("diagnostico");
  withExamples(environmentFlags(diagnose, context.words), context.options.examples)
    .option("--projects", "list each environment's projects")
    .option(
      "--deep [environment]",
      "probe one environment's every assumption, read-only: a report (ADR 0069)",
    )
    .option("--json", "with --deep: the report as JSON")
    .action(
      (
        flags: EnvironmentFlags & { projects?: boolean; deep?: boolean | string; json?: boolean },
        from: Command,
      ) => {
        const named = typeof flags.deep === "string" ? flags.deep : undefined;
        const environment = named ?? environmentOf(flags, from, context.options);
        return context.found(
          {
            kind: "diagnose",
            ...(environment === undefined ? {} : { environment }),
            ...(flags.projects === true ? { projects: true } : {}),
            ...(flags.deep === undefined ? {} : { deep: true }),
            ...(flags.json === true ? { json: true } : {}),
          },
          from,
        );
      },
    );
}

function definePair(program: Command, context: Context): void {
  const pair = environmentFlags(
    program
      .command("pair")
      .description(
        `save a new ${context.words.token} for an environment; the pairing code is read from stdin`,
      ),
    context.words,
  );
  if (context.words.readFlags) {
    pair.option("--also <write,ops>", "also renew write.json's and ops.json's token", valueOnce("--also"));
  }
  withExamples(pair, context.options.examples).action(
    (flags: EnvironmentFlags & { also?: string }, from: Command) => {
      const environment = environmentOf(flags, from, context.options);
      if (environment === undefined)
        throw usageProblem("pair needs --environment X (an alias or environmentId)");
      const also = parseAlsoOption(flags.also);
      return context.found({ kind: "pair", environment, ...(also === undefined ? {} : { also }) }, from);
    },
  );
}

function withExamples(command: Command, examples: string | undefined): Command {
  return examples === undefined ? command : command.addHelpText("after", examples);
}

/** `--environment X` (or `--environment=X`; the read CLI also the Portuguese `--ambiente X`), at most once. */
function environmentFlags(command: Command, words: OwnerWords): Command {
  command.option(
    "--environment <alias>",
    "only this environment (an alias, extra alias or environmentId)",
    valueOnce("--environment"),
  );
  if (words.portugueseAliases) {
    command.addOption(new Option("--ambiente <alias>").hideHelp().argParser(valueOnce("--ambiente")));
  }
  return command;
}

function environmentOf(
  flags: EnvironmentFlags,
  from: Command,
  options: EnvironmentsCommandLineOptions,
): string | undefined {
  if (flags.environment !== undefined && flags.ambiente !== undefined) {
    throw usageProblem("--environment given twice");
  }
  return flags.environment ?? flags.ambiente ?? options.environmentFallback?.(from);
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

/**
 * `--also write,ops|write|ops|none`: the other configs of this machine that the same command fills
 * (the gate's write.json, ops' ops.json), with an operate token from a second pairing code. `none`
 * is an answer too: it skips the question a terminal would otherwise ask.
 */
export function parseAlsoOption(value: string | undefined): OperateConfigName[] | undefined {
  if (value === undefined) return undefined;
  if (value === "none") return [];
  const names = value.split(",").map((name) => name.trim());
  const known: readonly string[] = OPERATE_CONFIG_NAMES;
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0 || names.length === 0) {
    throw usageProblem(`--also takes write, ops, write,ops or none (not ${unknown.join(", ") || value})`);
  }
  return [...new Set(names as OperateConfigName[])];
}
