/** The read commands: `ls`, `thread`, `read`, `timeline`, `list`, `projects`, `providers`, `diff`, `worktree`. */
import { ConnectorError } from "@t3-connector/core";
import { EXIT_CODES } from "@t3-connector/core/cli-support";
import type { Command } from "commander";
import { THREAD_STATE_NAMES } from "../command-constants.js";
import { renderListing } from "../render.js";
import { renderDiff, renderDiffStat, renderWorktree } from "../render-diff.js";
import {
  renderProjects,
  renderProviders,
  renderThread,
  renderThreadList,
  renderTimeline,
} from "../render-reads.js";
import type { RegisterCommand } from "./command-table.js";
import { EXAMPLES } from "./examples.js";
import { integerOption, requireEnv } from "./options.js";

const registerLs: RegisterCommand = (program, session) => {
  program
    .command("ls")
    .description("every environment's threads, grouped by environment and project, with status icons and age")
    .option("--settled", "only the settled threads")
    .option("--archived", "only the archived threads (from the archived shell snapshot)")
    .addHelpText("after", EXAMPLES.ls)
    .action(async (options, command: Command) => {
      const opened = await session.openOps(command);
      const listing = await opened.list({
        ...(options.settled === true ? { settled: true } : {}),
        ...(options.archived === true ? { archived: true } : {}),
      });
      if (opened.environments.config.environments.length === 0) await session.hintNoEnvironments(opened);
      // Every environment failed: nothing was listed, and an empty list must not read as "no threads".
      const allFailed = listing.environments.length === 0 && listing.unreachable.length > 0;
      session.done(listing, renderListing, allFailed ? EXIT_CODES.unavailable : EXIT_CODES.ok);
    });
};

const registerThread: RegisterCommand = (program, session) => {
  program
    .command("thread <ref>")
    .description(
      "read one thread: id, exact title or unique case-insensitive part of a title, optionally alias:ref",
    )
    .addHelpText("after", EXAMPLES.thread)
    .action(async (ref: string, _options, command: Command) => {
      const { env } = session.globals(command);
      session.done(await (await session.openOps(command)).thread(ref, env), renderThread);
    });
};

const registerRead: RegisterCommand = (program, session) => {
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
      const { env } = session.globals(command);
      const maxCharacters = options.maxCharacters as number | undefined;
      const opened = await session.openOps(command);
      session.done(
        await opened.thread(ref, env, maxCharacters === undefined ? {} : { maxCharacters }),
        renderThread,
      );
    });
};

const registerTimeline: RegisterCommand = (program, session) => {
  program
    .command("timeline <ref>")
    .description("a thread's latest messages (as t3_mensagens)")
    .option("--limit <n>", "how many of the latest messages", integerOption("--limit"))
    .option("--max-characters <n>", "characters kept of each message", integerOption("--max-characters"))
    .addHelpText("after", EXAMPLES.timeline)
    .action(async (ref: string, options, command: Command) => {
      const { env } = session.globals(command);
      session.done(
        await (await session.openOps(command)).timeline(ref, env, {
          ...(options.limit === undefined ? {} : { limit: options.limit as number }),
          ...(options.maxCharacters === undefined ? {} : { maxCharacters: options.maxCharacters as number }),
        }),
        renderTimeline,
      );
    });
};

const registerList: RegisterCommand = (program, session) => {
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
      const { env } = session.globals(command);
      if (options.woke === true && options.notWoke === true) {
        throw new ConnectorError("invalid_input", "give at most one of --woke and --not-woke");
      }
      const woke = options.woke === true ? true : options.notWoke === true ? false : undefined;
      const opened = await session.openOps(command);
      const environment = requireEnv(env, opened);
      session.done(
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
};

const registerProjects: RegisterCommand = (program, session) => {
  program
    .command("projects")
    .description("one environment's projects (as t3_projetos)")
    .option("--search <text>", "part of the title or projectId")
    .addHelpText("after", EXAMPLES.projects)
    .action(async (options, command: Command) => {
      const { env } = session.globals(command);
      const opened = await session.openOps(command);
      const environment = requireEnv(env, opened);
      const search = options.search as string | undefined;
      session.done(
        await opened.projects(environment, search === undefined ? {} : { search }),
        renderProjects,
      );
    });
};

const registerProviders: RegisterCommand = (program, session) => {
  program
    .command("providers")
    .description("one environment's provider instances, models and options (as t3_providers)")
    .option("--instance <id>", "only this provider instance")
    .addHelpText("after", EXAMPLES.providers)
    .action(async (options, command: Command) => {
      const { env } = session.globals(command);
      const opened = await session.openOps(command);
      const instanceId = options.instance as string | undefined;
      session.done(
        await opened.providers(requireEnv(env, opened), instanceId === undefined ? {} : { instanceId }),
        renderProviders,
      );
    });
};

const registerDiff: RegisterCommand = (program, session) => {
  program
    .command("diff <ref>")
    .description(
      "what a thread's agent changed, as a unified diff (as t3_diff): its latest run, a run, or the whole thread",
    )
    .option("--run <runId>", "this run's changes")
    .option("--thread", "everything the thread changed")
    .option("--stat", "one line per file and a total, as git diff --stat")
    .addHelpText("after", EXAMPLES.diff)
    .action(async (ref: string, options, command: Command) => {
      const { env } = session.globals(command);
      if (options.thread === true && options.run !== undefined) {
        throw new ConnectorError("invalid_input", "give at most one of --run and --thread");
      }
      const opened = await session.openOps(command);
      const diff = await opened.diff(ref, env, {
        ...(options.thread === true ? { thread: true } : {}),
        ...(options.run === undefined ? {} : { runId: options.run as string }),
      });
      const colour = session.stdoutIsTTY;
      session.doneText(diff, (value: Record<string, unknown>) =>
        options.stat === true ? renderDiffStat(value) : renderDiff(value, colour),
      );
    });
};

const registerWorktree: RegisterCommand = (program, session) => {
  program
    .command("worktree <ref>")
    .description(
      "where a thread works (as t3_worktree): its folder, branch, uncommitted files and the project's worktrees",
    )
    .addHelpText("after", EXAMPLES.worktree)
    .action(async (ref: string, _options, command: Command) => {
      const { env } = session.globals(command);
      session.done(await (await session.openOps(command)).worktree(ref, env), renderWorktree);
    });
};

export const READ_COMMANDS: readonly RegisterCommand[] = [
  registerLs,
  registerThread,
  registerRead,
  registerTimeline,
  registerList,
  registerProjects,
  registerProviders,
  registerDiff,
  registerWorktree,
];
