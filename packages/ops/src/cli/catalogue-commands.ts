/** `act`, `query` and `actions`: any catalogue action or read by name, with JSON input. */
import type { Command } from "commander";
import { renderCatalogue } from "../render.js";
import type { RegisterCommand } from "./command-table.js";
import { EXAMPLES } from "./examples.js";
import { parseJsonInput, requireEnv } from "./options.js";

const registerAct: RegisterCommand = (program, session) => {
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
      const { env } = session.globals(command);
      const opened = await session.openOps(command);
      const environment = requireEnv(env, opened);
      const text = (options.input as string | undefined) ?? (await session.stdinText()) ?? "{}";
      const input = parseJsonInput(text, "the action input");
      session.done(
        await opened.act(environment, action, input, {
          operationId: options.operationId,
          ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
        }),
      );
    });
};

const registerBatch: RegisterCommand = (program, session) => {
  program
    .command("batch <action> <threads...>")
    .description(
      "one of pin, unpin, snooze, unsnooze, settle, unsettle, archive, unarchive for up to 20 threads, each sent once; stops at the first uncertain one",
    )
    .requiredOption(
      "--batch-id <id>",
      "idempotency key of the batch: a repeat resumes, sending nothing twice",
    )
    .option("--until <iso>", "snooze only: when the threads wake")
    .option("--namespace <ns>", "namespace of the derived ids")
    .addHelpText("after", EXAMPLES.batch)
    .action(async (action: string, threads: string[], options, command: Command) => {
      const { env } = session.globals(command);
      const opened = await session.openOps(command);
      const environment = requireEnv(env, opened);
      session.done(
        await opened.batch(environment, action, threads, {
          batchId: options.batchId,
          ...(options.until === undefined ? {} : { until: options.until }),
          ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
        }),
      );
    });
};

const registerQuery: RegisterCommand = (program, session) => {
  program
    .command("query <name>")
    .description("run one read (see `actions`) in one environment; input JSON from --input or stdin")
    .option("--input <json>", "the read's input object (default: stdin, else {})")
    .addHelpText("after", EXAMPLES.query)
    .action(async (name: string, options, command: Command) => {
      const { env } = session.globals(command);
      const opened = await session.openOps(command);
      const environment = requireEnv(env, opened);
      const text = (options.input as string | undefined) ?? (await session.stdinText());
      const input = text === undefined || text.trim() === "" ? {} : parseJsonInput(text, "the query input");
      session.done(await opened.query(environment, name, input));
    });
};

const registerActions: RegisterCommand = (program, session) => {
  program
    .command("actions")
    .description(
      "every action (act) and read (query), with kind and description; with an environment, whether it can run each",
    )
    .action(async (_options, command: Command) => {
      const { env } = session.globals(command);
      // Without an environment the list needs no config: an empty one answers the catalogue alone.
      const opened =
        env === undefined
          ? new (await import("../ops.js")).Ops({ config: { path: "", environments: [] } })
          : await session.openOps(command);
      session.done(await opened.actions(env), renderCatalogue);
    });
};

export const CATALOGUE_COMMANDS: readonly RegisterCommand[] = [
  registerAct,
  registerBatch,
  registerQuery,
  registerActions,
];
