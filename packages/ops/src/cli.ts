/**
 * `t3-connector-ops`: the CLI over the module API. Output is JSON (one document) when stdout is
 * not a terminal or with --json, tables otherwise; errors go to stderr as `code: message` with
 * the exit codes of exit-codes.ts. `t3-connector-ops <env> <command> ...` is the same as
 * `t3-connector-ops <command> ... --env <env>`.
 *
 * Parsed with commander, like every CLI here. To add a command: `program.command("name <ref>")`
 * with `.description`, its options (an integer: `integerOption`), an EXAMPLES entry and an action
 * that ends with `done(value, render?)`; usage errors are `ConnectorError("invalid_input", …)`.
 */
import { ConnectorError, isConnectorError } from "@t3-connector/core";
import { type CliInput, type CliIo, readAll } from "@t3-connector/core/cli-support";
import { Command, CommanderError, Option } from "commander";
import {
  DEFAULT_WAIT_TIMEOUT_MS,
  INTERACTION_MODE_NAMES,
  RUNTIME_MODE_NAMES,
  SEND_DELIVERIES,
  type SendDelivery,
  THREAD_STATE_NAMES,
} from "./command-constants.js";
import { EXIT_CODES, exitCodeOf } from "./exit-codes.js";
// The operations are loaded when a command runs, not to parse a command line (bench/ops-startup).
import type { Ops } from "./ops.js";
import type { OrganizeChange } from "./organize.js";
import { opsVersion } from "./package-info.js";
import { renderCatalogue, renderEnvironments, renderListing, renderValue } from "./render.js";
import {
  renderProjects,
  renderProviders,
  renderThread,
  renderThreadList,
  renderTimeline,
} from "./render-reads.js";

export interface OpsCliIo extends CliIo {
  /** Whether stdout is a terminal (tables) or not (JSON). */
  stdoutIsTTY?: boolean;
  /** Whether stdin is a terminal: then nothing is read from it. */
  stdinIsTTY?: boolean;
}

const MAX_STDIN_BYTES = 1024 * 1024;

/** `<env> <command> ...` → `<command> ... --env <env>`. */
function normaliseArgv(argv: readonly string[], commands: readonly string[]): string[] {
  const [first, ...rest] = argv;
  if (first === undefined || first.startsWith("-") || commands.includes(first)) return [...argv];
  if (rest.length === 0) return [...argv];
  return [...rest, "--env", first];
}

interface Outcome {
  value: unknown;
  human: (value: never) => string;
  exitCode: number;
}

function parseJsonInput(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConnectorError("invalid_input", `${what} is not valid JSON: ${(error as Error).message}`);
  }
}

function collectOption(value: string, previous: { id: string; value: string | boolean }[]) {
  const equals = value.indexOf("=");
  if (equals <= 0) throw new ConnectorError("invalid_input", `--option needs id=value, got "${value}"`);
  const raw = value.slice(equals + 1);
  const parsed = raw === "true" ? true : raw === "false" ? false : raw;
  return [...previous, { id: value.slice(0, equals), value: parsed }];
}

/** A commander parser for an integer option; anything else is invalid_input, before any read. */
function integerOption(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (value.trim() === "" || !Number.isInteger(parsed)) {
      throw new ConnectorError("invalid_input", `${name} needs an integer, got "${value}"`);
    }
    return parsed;
  };
}

/** The named environment, or the only one configured (see OpsEnvironments.implicit). */
function requireEnv(env: string | undefined, ops: Ops): string {
  return ops.environments.implicit(env);
}

const EXAMPLES = {
  root: `
Examples:
  t3-connector-ops ls                       every environment's threads, by project
  t3-connector-ops ls --json | jq '.environments[].projects[].threads[] | select(.state=="needs_intervention")'
  t3-connector-ops thread "parser"          one thread by id, title or unique part of a title
  t3-connector-ops alpha create --project website --title "Fix footer" --instance codex \\
      --model gpt-5.6-sol --client-request-id footer-1 < brief.md
  t3-connector-ops wait alpha:footer && echo done

Exit codes: 0 ok, 1 unexpected, 2/3/4 wait (needs a human / failed / timeout), 64 usage or
invalid input, 65 ambiguous reference, 66 not found, 67 refused (guard or T3), 69 unavailable,
75 outcome unknown (read before repeating), 78 config or token file.`,
  environments:
    "\nExamples:\n  t3-connector-ops environments\n  pbpaste | t3-connector-ops environments add mac --url https://mac.tailnet:3773 --token-file ~/.config/t3-connector/tokens/mac.operate --alias laptop",
  ls: "\nExamples:\n  t3-connector-ops ls\n  t3-connector-ops ls --json\n  t3-connector-ops ls --archived          archived threads only\n  t3-connector-ops ls --settled --archived  threads that are settled or archived",
  thread:
    '\nExamples:\n  t3-connector-ops thread 3f2a…\n  t3-connector-ops thread "Fix flaky"\n  t3-connector-ops alpha thread parser',
  create:
    "\nExamples:\n  t3-connector-ops alpha create --project website --title T --instance codex --model gpt-5.6-sol \\\n      --effort high --client-request-id X < brief.md\n  (a repeat with the same --client-request-id returns the thread with created: false and sends nothing)",
  send: '\nExamples:\n  echo "please add tests" | t3-connector-ops send alpha:parser --message-id m-1\n  t3-connector-ops send "Fix footer" --message-id m-2 --delivery queue_after_active < note.txt',
  settle: '\nExamples:\n  t3-connector-ops settle "Release checklist"',
  snooze: "\nExamples:\n  t3-connector-ops snooze alpha:footer 2026-12-04T09:00:00+01:00",
  interrupt:
    '\nExamples:\n  t3-connector-ops interrupt alpha:migration --operation-id stop-1 --reason "wrong branch"',
  configure:
    '\nExamples:\n  t3-connector-ops configure alpha:parser --model gpt-5.6-luna --effort high --operation-id cfg-1\n  t3-connector-ops configure "Fix footer" --runtime-mode approval-required --interaction-mode plan --operation-id cfg-2\n  (omitted --instance/--model keep the current ones; a repeat with the same --operation-id replays T3\'s receipts)',
  projects:
    "\nExamples:\n  t3-connector-ops alpha projects\n  t3-connector-ops alpha projects --search web --json",
  providers:
    "\nExamples:\n  t3-connector-ops alpha providers --json | jq '.providers[].instanceId'\n  t3-connector-ops alpha providers --instance codex --json | jq '.providers[].models[].slug'",
  list: "\nExamples:\n  t3-connector-ops alpha list --project website --state needs_intervention\n  t3-connector-ops alpha list --search footer --limit 5",
  read: '\nExamples:\n  t3-connector-ops alpha read parser\n  t3-connector-ops read alpha:"Fix footer" --max-characters 2000',
  timeline:
    '\nExamples:\n  t3-connector-ops timeline alpha:parser --limit 10\n  t3-connector-ops alpha timeline "Fix footer" --max-characters 500',
  organize:
    '\nExamples:\n  t3-connector-ops organize alpha:parser --pin --operation-id pin-1\n  t3-connector-ops organize "Fix footer" --title "Footer links" --operation-id rename-1\n  t3-connector-ops organize alpha:3f2a… --unarchive --operation-id back-1   (an archived thread: by id)',
  act: '\nExamples:\n  t3-connector-ops alpha act thread.pin --operation-id pin-1 --input \'{"threadId":"…"}\'\n  t3-connector-ops alpha act thread.title --operation-id t-1 < input.json',
  query:
    '\nExamples:\n  t3-connector-ops alpha query thread --input \'{"threadId":"…"}\'\n  t3-connector-ops alpha query attention',
  wait: "\nExamples:\n  t3-connector-ops wait alpha:parser --timeout 600000; echo $?   # 0 done, 2 needs you, 3 failed, 4 timeout",
} as const;

/** Runs one command line; returns the exit code (never calls process.exit). */
export async function runCli(argv: readonly string[], io: OpsCliIo = defaultIo()): Promise<number> {
  let outcome: Outcome | undefined;
  let ops: Ops | undefined;
  const openOps = async (configPath: string | undefined): Promise<Ops> => {
    const context = {
      ...(io.env === undefined ? {} : { env: io.env }),
      ...(io.homeDir === undefined ? {} : { homeDir: io.homeDir }),
      ...(configPath === undefined ? {} : { path: configPath }),
    };
    const { Ops } = await import("./ops.js");
    const { loadOpsConfig } = await import("./config.js");
    const loaded = await loadOpsConfig(context);
    const ceiling = (program.opts() as { maxRuntimeMode?: (typeof RUNTIME_MODE_NAMES)[number] })
      .maxRuntimeMode;
    ops = new Ops({
      config: ceiling === undefined ? loaded : { ...loaded, maxRuntimeMode: ceiling },
      ...(io.fetch === undefined ? {} : { fetch: io.fetch }),
    });
    return ops;
  };
  const stdinText = async (): Promise<string | undefined> => {
    if (io.stdin === undefined || io.stdinIsTTY === true) return undefined;
    return readAll(io.stdin as CliInput, MAX_STDIN_BYTES);
  };
  const done = (
    value: unknown,
    human: (value: never) => string = renderValue,
    exitCode: number = EXIT_CODES.ok,
  ) => {
    outcome = { value, human, exitCode };
  };
  type Globals = { json?: boolean; env?: string; config?: string };
  /** An empty config is a state: the listing answers (empty) and stderr says how to add one. */
  const hintNoEnvironments = async (opened: Ops) => {
    const { noEnvironmentsMessage } = await import("@t3-connector/core/config");
    io.stderr.write(`${noEnvironmentsMessage("ops", opened.environments.config.path)}\n`);
  };
  const configPathOf = async (command: Command): Promise<string> => {
    const { opsConfigPath } = await import("./config.js");
    return (
      globals(command).config ??
      opsConfigPath({
        ...(io.env === undefined ? {} : { env: io.env }),
        ...(io.homeDir === undefined ? {} : { homeDir: io.homeDir }),
      })
    );
  };
  const globals = (command: Command) => command.optsWithGlobals() as Globals;

  const program = new Command("t3-connector-ops")
    .description("The operator's CLI over every T3 environment (own orchestration:operate token, no lease).")
    .version(opsVersion(), "--version", "print the version")
    .option("--json", "print JSON even on a terminal")
    .option("--env <name>", "the environment (alias, extra alias or environmentId)")
    .addOption(
      new Option(
        "--max-runtime-mode <mode>",
        "refuse writes that would run an agent above this runtime mode (default: the config's maxRuntimeMode, else full-access)",
      ).choices([...RUNTIME_MODE_NAMES]),
    )
    .option(
      "--config <path>",
      "the ops config file (default $T3_CONNECTOR_OPS_CONFIG or ~/.config/t3-connector/ops.json)",
    )
    .addHelpText("after", EXAMPLES.root)
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // Usage errors keep the CLI's one error form, `code: message`.
      outputError: (text, write) => write(`invalid_input: ${text.replace(/^error: /, "")}`),
    });

  const environmentsCommand = program
    .command("environments")
    .description("list the configured environments (probing each), or add one")
    .addHelpText("after", EXAMPLES.environments);
  environmentsCommand
    .command("list", { isDefault: true })
    .description("list the configured environments and probe each")
    .action(async (_options, command: Command) => {
      const opened = await openOps(globals(command).config);
      if (opened.environments.config.environments.length === 0) await hintNoEnvironments(opened);
      done(await opened.environmentStatus(), renderEnvironments);
    });
  environmentsCommand
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
      const configPath = await configPathOf(command);
      if ((options.url === undefined) === (options.ssh === undefined)) {
        throw new ConnectorError("invalid_input", "give exactly one of --url and --ssh");
      }
      const { readPairingCode } = await import("@t3-connector/core/pairing");
      const { addEnvironment } = await import("./environments-add.js");
      const code = await readPairingCode(io);
      const result = await addEnvironment(
        {
          alias,
          tokenFile: options.tokenFile,
          code,
          ...(options.url === undefined ? {} : { url: options.url }),
          ...(options.ssh === undefined
            ? {}
            : {
                ssh: {
                  host: options.ssh,
                  ...(options.remotePort === undefined ? {} : { remotePort: Number(options.remotePort) }),
                },
              }),
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
      done(result);
    });

  environmentsCommand
    .command("remove <alias>")
    .description("take an environment out of the ops config and delete its token file")
    .action(async (alias: string, _options, command: Command) => {
      const configPath = await configPathOf(command);
      const { removeEnvironment } = await import("./environments-remove.js");
      done(
        await removeEnvironment(alias, {
          configPath,
          ...(io.homeDir === undefined ? {} : { homeDir: io.homeDir }),
        }),
      );
    });

  program
    .command("ls")
    .description("every environment's threads, grouped by environment and project, with status icons and age")
    .option("--settled", "only the settled threads")
    .option("--archived", "only the archived threads (from the archived shell snapshot)")
    .addHelpText("after", EXAMPLES.ls)
    .action(async (options, command: Command) => {
      const opened = await openOps(globals(command).config);
      const listing = await opened.list({
        ...(options.settled === true ? { settled: true } : {}),
        ...(options.archived === true ? { archived: true } : {}),
      });
      if (opened.environments.config.environments.length === 0) await hintNoEnvironments(opened);
      // Every environment failed: nothing was listed, and an empty list must not read as "no threads".
      const allFailed = listing.environments.length === 0 && listing.unreachable.length > 0;
      done(listing, renderListing, allFailed ? EXIT_CODES.unavailable : EXIT_CODES.ok);
    });

  program
    .command("thread <ref>")
    .description(
      "read one thread: id, exact title or unique case-insensitive part of a title, optionally alias:ref",
    )
    .addHelpText("after", EXAMPLES.thread)
    .action(async (ref: string, _options, command: Command) => {
      const { config, env } = globals(command);
      done(await (await openOps(config)).thread(ref, env), renderThread);
    });

  program
    .command("read <ref>")
    .description("read one thread (as t3_thread) in the environment named by --env, <env> or alias:ref")
    .option(
      "--max-characters <n>",
      "characters kept of the latest response",
      integerOption("--max-characters"),
    )
    .addHelpText("after", EXAMPLES.read)
    .action(async (ref: string, options, command: Command) => {
      const { config, env } = globals(command);
      const maxCharacters = options.maxCharacters as number | undefined;
      done(
        await (await openOps(config)).thread(ref, env, maxCharacters === undefined ? {} : { maxCharacters }),
        renderThread,
      );
    });

  program
    .command("timeline <ref>")
    .description("a thread's latest messages (as t3_mensagens)")
    .option("--limit <n>", "how many of the latest messages", integerOption("--limit"))
    .option("--max-characters <n>", "characters kept of each message", integerOption("--max-characters"))
    .addHelpText("after", EXAMPLES.timeline)
    .action(async (ref: string, options, command: Command) => {
      const { config, env } = globals(command);
      done(
        await (await openOps(config)).timeline(ref, env, {
          ...(options.limit === undefined ? {} : { limit: options.limit as number }),
          ...(options.maxCharacters === undefined ? {} : { maxCharacters: options.maxCharacters as number }),
        }),
        renderTimeline,
      );
    });

  program
    .command("list")
    .description("one environment's threads (as t3_threads), with its filters")
    .option("--project <project>", "projectId, workspace root or unique title")
    .option("--state <state>", `one canonical state: ${THREAD_STATE_NAMES.join(", ")}`)
    .option("--include-no-run", "without --state: also threads that never ran")
    .option("--woke", "only threads T3 marks Woke")
    .option("--not-woke", "only threads T3 does not mark Woke")
    .option("--search <text>", "part of the title or threadId")
    .option("--limit <n>", "page size", integerOption("--limit"))
    .option("--cursor <cursor>", "the nextCursor of the previous page")
    .addHelpText("after", EXAMPLES.list)
    .action(async (options, command: Command) => {
      const { config, env } = globals(command);
      if (options.woke === true && options.notWoke === true) {
        throw new ConnectorError("invalid_input", "give at most one of --woke and --not-woke");
      }
      const woke = options.woke === true ? true : options.notWoke === true ? false : undefined;
      const opened = await openOps(config);
      const environment = requireEnv(env, opened);
      done(
        await opened.threads(environment, {
          ...(options.project === undefined ? {} : { project: options.project as string }),
          ...(options.state === undefined ? {} : { state: options.state as string }),
          ...(options.includeNoRun === true ? { includeNoRun: true } : {}),
          ...(woke === undefined ? {} : { woke }),
          ...(options.search === undefined ? {} : { search: options.search as string }),
          ...(options.limit === undefined ? {} : { limit: options.limit as number }),
          ...(options.cursor === undefined ? {} : { cursor: options.cursor as string }),
        }),
        renderThreadList,
      );
    });

  program
    .command("projects")
    .description("one environment's projects (as t3_projetos)")
    .option("--search <text>", "part of the title or projectId")
    .addHelpText("after", EXAMPLES.projects)
    .action(async (options, command: Command) => {
      const { config, env } = globals(command);
      const opened = await openOps(config);
      const environment = requireEnv(env, opened);
      const search = options.search as string | undefined;
      done(await opened.projects(environment, search === undefined ? {} : { search }), renderProjects);
    });

  program
    .command("providers")
    .description("one environment's provider instances, models and options (as t3_providers)")
    .option("--instance <id>", "only this provider instance")
    .addHelpText("after", EXAMPLES.providers)
    .action(async (options, command: Command) => {
      const { config, env } = globals(command);
      const opened = await openOps(config);
      const instanceId = options.instance as string | undefined;
      done(
        await opened.providers(requireEnv(env, opened), instanceId === undefined ? {} : { instanceId }),
        renderProviders,
      );
    });

  program
    .command("create")
    .description("create a thread (idempotent by --client-request-id); the brief is read from stdin")
    .requiredOption("--project <project>", "projectId, workspace root or unique title")
    .requiredOption("--title <title>", "thread title")
    .requiredOption("--instance <instance>", "provider instance (server.getConfig)")
    .requiredOption("--model <model>", "model slug offered by the instance")
    .requiredOption("--client-request-id <id>", "idempotency key: the thread id derives from it")
    .option("--effort <effort>", "reasoning effort, mapped to the model's option")
    .option("--option <id=value>", "a model option (repeatable)", collectOption, [])
    .option("--runtime-mode <mode>", "runtime mode (default full-access)")
    .addHelpText("after", EXAMPLES.create)
    .action(async (options, command: Command) => {
      const { config, env } = globals(command);
      const opened = await openOps(config);
      const environment = requireEnv(env, opened);
      const brief = (await stdinText())?.trim();
      const result = await opened.create(environment, {
        project: options.project,
        title: options.title,
        instance: options.instance,
        model: options.model,
        clientRequestId: options.clientRequestId,
        ...(options.effort === undefined ? {} : { effort: options.effort }),
        ...(options.option.length === 0 ? {} : { options: options.option }),
        ...(options.runtimeMode === undefined ? {} : { runtimeMode: options.runtimeMode }),
        ...(brief === undefined || brief === "" ? {} : { brief }),
      });
      done(result);
    });

  program
    .command("send <ref>")
    .description(
      "send a message (text from stdin or --text), idempotent by --message-id, confirmed by reading the thread",
    )
    .requiredOption("--message-id <id>", "idempotency key of this message")
    .option("--text <text>", "the message (default: stdin)")
    .addOption(
      new Option("--delivery <delivery>", "how the message is delivered")
        .choices([...SEND_DELIVERIES])
        .default("start_immediately"),
    )
    .addHelpText("after", EXAMPLES.send)
    .action(async (ref: string, options, command: Command) => {
      const { config, env } = globals(command);
      const text = (options.text as string | undefined) ?? (await stdinText());
      if (text === undefined || text.trim() === "") {
        throw new ConnectorError("invalid_input", "send needs a message: pipe it on stdin or pass --text");
      }
      const opened = await openOps(config);
      done(
        await opened.send(env, {
          thread: ref,
          text,
          messageId: options.messageId,
          delivery: options.delivery as SendDelivery,
        }),
      );
    });

  program
    .command("settle <ref>")
    .description("mark a thread done; refused while it runs or has a pending request")
    .addHelpText("after", EXAMPLES.settle)
    .action(async (ref: string, _options, command: Command) => {
      const { config, env } = globals(command);
      done(await (await openOps(config)).settle(env, ref));
    });

  program
    .command("snooze <ref> <until>")
    .description(
      "hide a thread until an ISO date-time with offset; refused while it runs or has a pending request",
    )
    .addHelpText("after", EXAMPLES.snooze)
    .action(async (ref: string, until: string, _options, command: Command) => {
      const { config, env } = globals(command);
      done(await (await openOps(config)).snooze(env, ref, until));
    });

  program
    .command("interrupt <ref>")
    .description("stop the thread's active run (or --run-id); no active run: {interrupted: false}")
    .requiredOption("--operation-id <id>", "idempotency key")
    .option("--run-id <id>", "the run to stop (default: the active run)")
    .option("--reason <text>", "why, recorded by T3")
    .addHelpText("after", EXAMPLES.interrupt)
    .action(async (ref: string, options, command: Command) => {
      const { config, env } = globals(command);
      done(
        await (await openOps(config)).interrupt(env, ref, {
          operationId: options.operationId,
          ...(options.runId === undefined ? {} : { runId: options.runId }),
          ...(options.reason === undefined ? {} : { reason: options.reason }),
        }),
      );
    });

  program
    .command("configure <ref>")
    .description(
      "change a thread's instance, model, effort, runtime or interaction mode (checked against server.getConfig first), confirmed by reading the thread",
    )
    .requiredOption("--operation-id <id>", "idempotency key: every command id derives from it")
    .option("--instance <instance>", "provider instance (another one is a provider.switch)")
    .option("--model <model>", "model slug offered by the instance")
    .option("--effort <effort>", "reasoning effort, mapped to the model's option")
    .option("--option <id=value>", "a model option (repeatable)", collectOption, [])
    .option("--runtime-mode <mode>", `one of ${RUNTIME_MODE_NAMES.join(", ")}`)
    .option("--interaction-mode <mode>", `one of ${INTERACTION_MODE_NAMES.join(", ")}`)
    .option("--namespace <ns>", "namespace of the derived ids")
    .addHelpText("after", EXAMPLES.configure)
    .action(async (ref: string, options, command: Command) => {
      const { config, env } = globals(command);
      const optional = (key: string) => (options[key] === undefined ? {} : { [key]: options[key] as string });
      done(
        await (await openOps(config)).configure(env, ref, {
          operationId: options.operationId,
          ...optional("instance"),
          ...optional("model"),
          ...optional("effort"),
          ...optional("runtimeMode"),
          ...optional("interactionMode"),
          ...optional("namespace"),
          ...(options.option.length === 0 ? {} : { options: options.option }),
        }),
      );
    });

  program
    .command("organize <ref>")
    .description(
      "pin, unpin, rename, archive or unarchive a thread (one change), confirmed by reading it back",
    )
    .requiredOption("--operation-id <id>", "idempotency key: the command id derives from it")
    .option("--pin", "pin the thread")
    .option("--unpin", "remove its pin")
    .option("--title <title>", "rename it")
    .option("--archive", "archive it")
    .option("--unarchive", "bring it back from the archive")
    .option("--namespace <ns>", "namespace of the derived ids")
    .addHelpText("after", EXAMPLES.organize)
    .action(async (ref: string, options, command: Command) => {
      const { config, env } = globals(command);
      const changes: OrganizeChange[] = [
        ...(options.pin === true ? [{ kind: "pin" as const }] : []),
        ...(options.unpin === true ? [{ kind: "unpin" as const }] : []),
        ...(options.title === undefined ? [] : [{ kind: "title" as const, title: options.title as string }]),
        ...(options.archive === true ? [{ kind: "archive" as const }] : []),
        ...(options.unarchive === true ? [{ kind: "unarchive" as const }] : []),
      ];
      const [change, ...more] = changes;
      if (change === undefined || more.length > 0) {
        throw new ConnectorError(
          "invalid_input",
          "organize takes exactly one of --pin, --unpin, --title, --archive, --unarchive",
        );
      }
      done(
        await (await openOps(config)).organize(env, ref, change, {
          operationId: options.operationId,
          ...(options.namespace === undefined ? {} : { namespace: options.namespace as string }),
        }),
      );
    });

  program
    .command("act <action>")
    .description(
      "run one catalogue action (same schemas and codes as the write tools); input JSON from --input or stdin",
    )
    .requiredOption("--operation-id <id>", "idempotency key: every id sent derives from it")
    .option("--namespace <ns>", "namespace of the derived ids")
    .option("--input <json>", "the action's input object (default: stdin)")
    .addHelpText("after", EXAMPLES.act)
    .action(async (action: string, options, command: Command) => {
      const { config, env } = globals(command);
      const opened = await openOps(config);
      const environment = requireEnv(env, opened);
      const text = (options.input as string | undefined) ?? (await stdinText()) ?? "{}";
      const input = parseJsonInput(text, "the action input");
      done(
        await opened.act(environment, action, input, {
          operationId: options.operationId,
          ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
        }),
      );
    });

  program
    .command("query <name>")
    .description("run one read (see `actions`) in one environment; input JSON from --input or stdin")
    .option("--input <json>", "the read's input object (default: stdin, else {})")
    .addHelpText("after", EXAMPLES.query)
    .action(async (name: string, options, command: Command) => {
      const { config, env } = globals(command);
      const opened = await openOps(config);
      const environment = requireEnv(env, opened);
      const text = (options.input as string | undefined) ?? (await stdinText());
      const input = text === undefined || text.trim() === "" ? {} : parseJsonInput(text, "the query input");
      done(await opened.query(environment, name, input));
    });

  program
    .command("actions")
    .description(
      "every action (act) and read (query), with kind and description; with an environment, whether it can run each",
    )
    .action(async (_options, command: Command) => {
      const { config, env } = globals(command);
      const opened =
        env === undefined
          ? new (await import("./ops.js")).Ops({ config: { path: "", environments: [] } })
          : await openOps(config);
      done(await opened.actions(env), renderCatalogue);
    });

  program
    .command("wait <ref>")
    .description(
      "block until the thread needs nothing from its run: exit 0 done, 2 needs a human, 3 failed, 4 timeout",
    )
    .option("--timeout <ms>", "deadline in milliseconds", String(DEFAULT_WAIT_TIMEOUT_MS))
    .addHelpText("after", EXAMPLES.wait)
    .action(async (ref: string, options, command: Command) => {
      const { config, env } = globals(command);
      const timeoutMs = Number(options.timeout);
      const result = await (await openOps(config)).wait(ref, {
        timeoutMs,
        ...(env === undefined ? {} : { environment: env }),
      });
      done(
        result,
        (value: typeof result) => `${value.outcome}: ${value.title} (${value.state})\n`,
        result.exitCode,
      );
    });

  const normalised = normaliseArgv(argv, [...program.commands.map((command) => command.name()), "help"]);
  try {
    await program.parseAsync(normalised, { from: "user" });
  } catch (error) {
    await ops?.close();
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return EXIT_CODES.ok;
      return EXIT_CODES.usage;
    }
    writeError(io, error);
    return exitCodeOf(error);
  }
  await ops?.close();
  if (outcome === undefined) return EXIT_CODES.ok;
  const json = io.stdoutIsTTY !== true || program.opts<{ json?: boolean }>().json === true;
  io.stdout.write(
    json ? `${JSON.stringify(outcome.value, null, 2)}\n` : outcome.human(outcome.value as never),
  );
  return outcome.exitCode;
}

function writeError(io: CliIo, error: unknown): void {
  if (isConnectorError(error)) {
    io.stderr.write(`${error.code}: ${error.message}\n`);
    const candidates = error.details?.candidates;
    if (Array.isArray(candidates)) {
      for (const candidate of candidates) io.stderr.write(`  ${JSON.stringify(candidate)}\n`);
    }
    return;
  }
  io.stderr.write(`internal: ${error instanceof Error ? error.message : "unexpected failure"}\n`);
}

function defaultIo(): OpsCliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    stdoutIsTTY: process.stdout.isTTY === true,
    stdinIsTTY: process.stdin.isTTY === true,
  };
}
