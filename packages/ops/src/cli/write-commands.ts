/**
 * The thread verbs: `create`, `send`, `settle`, `snooze`, `interrupt`, `configure`, `organize`.
 * Each is idempotent by the key it requires and confirmed by reading the thread back.
 */
import { ConnectorError } from "@t3-connector/core";
import { type Command, Option } from "commander";
import {
  INTERACTION_MODE_NAMES,
  RUNTIME_MODE_NAMES,
  SEND_DELIVERIES,
  type SendDelivery,
} from "../command-constants.js";
import type { OrganizeChange } from "../organize.js";
import type { RegisterCommand } from "./command-table.js";
import { EXAMPLES } from "./examples.js";
import { collectOption, requireEnv } from "./options.js";

const registerCreate: RegisterCommand = (program, session) => {
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
      const { env } = session.globals(command);
      const opened = await session.openOps(command);
      const environment = requireEnv(env, opened);
      const brief = (await session.stdinText())?.trim();
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
      session.done(result);
    });
};

const registerSend: RegisterCommand = (program, session) => {
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
      const { env } = session.globals(command);
      const text = (options.text as string | undefined) ?? (await session.stdinText());
      if (text === undefined || text.trim() === "") {
        throw new ConnectorError("invalid_input", "send needs a message: pipe it on stdin or pass --text");
      }
      const opened = await session.openOps(command);
      session.done(
        await opened.send(env, {
          thread: ref,
          text,
          messageId: options.messageId,
          delivery: options.delivery as SendDelivery,
        }),
      );
    });
};

const registerSettle: RegisterCommand = (program, session) => {
  program
    .command("settle <ref>")
    .description("mark a thread done; refused while it runs or has a pending request")
    .addHelpText("after", EXAMPLES.settle)
    .action(async (ref: string, _options, command: Command) => {
      const { env } = session.globals(command);
      session.done(await (await session.openOps(command)).settle(env, ref));
    });
};

const registerSnooze: RegisterCommand = (program, session) => {
  program
    .command("snooze <ref> <until>")
    .description(
      "hide a thread until an ISO date-time with offset; refused while it runs or has a pending request",
    )
    .addHelpText("after", EXAMPLES.snooze)
    .action(async (ref: string, until: string, _options, command: Command) => {
      const { env } = session.globals(command);
      session.done(await (await session.openOps(command)).snooze(env, ref, until));
    });
};

const registerInterrupt: RegisterCommand = (program, session) => {
  program
    .command("interrupt <ref>")
    .description("stop the thread's active run (or --run-id); no active run: {interrupted: false}")
    .requiredOption("--operation-id <id>", "idempotency key")
    .option("--run-id <id>", "the run to stop (default: the active run)")
    .option("--reason <text>", "why, recorded by T3")
    .addHelpText("after", EXAMPLES.interrupt)
    .action(async (ref: string, options, command: Command) => {
      const { env } = session.globals(command);
      session.done(
        await (await session.openOps(command)).interrupt(env, ref, {
          operationId: options.operationId,
          ...(options.runId === undefined ? {} : { runId: options.runId }),
          ...(options.reason === undefined ? {} : { reason: options.reason }),
        }),
      );
    });
};

const registerConfigure: RegisterCommand = (program, session) => {
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
      const { env } = session.globals(command);
      const optional = (key: string) => (options[key] === undefined ? {} : { [key]: options[key] as string });
      session.done(
        await (await session.openOps(command)).configure(env, ref, {
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
};

/** The one change `organize` was asked for; none or several is a usage error. */
function organizeChange(options: Record<string, unknown>): OrganizeChange {
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
  return change;
}

const registerOrganize: RegisterCommand = (program, session) => {
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
      const { env } = session.globals(command);
      const change = organizeChange(options);
      session.done(
        await (await session.openOps(command)).organize(env, ref, change, {
          operationId: options.operationId,
          ...(options.namespace === undefined ? {} : { namespace: options.namespace as string }),
        }),
      );
    });
};

export const WRITE_COMMANDS: readonly RegisterCommand[] = [
  registerCreate,
  registerSend,
  registerSettle,
  registerSnooze,
  registerInterrupt,
  registerConfigure,
  registerOrganize,
];
