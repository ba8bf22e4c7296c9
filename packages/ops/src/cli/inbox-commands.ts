/**
 * `inbox` and `answer` (ADR 0073): what waits on the person, as the gate's `/inbox` lists it, and
 * one item answered with the operator's token (no lease, as every ops verb).
 */
import { ConnectorError } from "@t3-connector/core";
import { INBOX_APPROVAL_DECISIONS, type InboxItem } from "@t3-connector/core/state";
import { type Command, Option } from "commander";
import type { InboxListing } from "../inbox.js";
import type { RegisterCommand } from "./command-table.js";

/** One line per item on a terminal: id, kind, how long, where, and what it asks. */
export function renderInbox(value: InboxListing): string {
  const line = (item: InboxItem) => {
    const minutes = item.waitedMs === null ? "?" : String(Math.floor(item.waitedMs / 60_000));
    const where = `${item.environment.alias}/${item.project.title ?? item.project.id ?? "-"}`;
    const title = item.thread?.title ?? item.thread?.id ?? "";
    const request = item.request;
    const what =
      request.type === "runtime"
        ? request.content?.type === "approval"
          ? request.content.prompt
          : (request.content?.questions.map((question) => question.question).join(" / ") ??
            request.detail ??
            "")
        : request.type === "secret"
          ? `secret ${request.name ?? ""} (answer in T3)`
          : (request.purpose ?? "lease request");
    return `${item.itemId}  ${item.kind.padEnd(8)} ${`${minutes} min`.padStart(7)}  ${where}  ${title}: ${what.replace(/\s+/g, " ").slice(0, 120)}`;
  };
  const lines = value.items.map(line);
  if (lines.length === 0) lines.push("(nothing waits on you)");
  for (const missing of value.unavailable) lines.push(`(not read: ${missing.alias}, ${missing.reason})`);
  return `${lines.join("\n")}\n`;
}

const registerInbox: RegisterCommand = (program, session) => {
  program
    .command("inbox")
    .description("what waits on the person in every environment, oldest first (as the gate's /inbox)")
    .action(async (_options, command: Command) => {
      const { env } = session.globals(command);
      const opened = await session.openOps(command);
      session.done(await opened.inbox(env), renderInbox as (value: never) => string);
    });
};

const registerAnswer: RegisterCommand = (program, session) => {
  program
    .command("answer <item>")
    .description(
      "answer one inbox item with the operator's token: an approval's decision, or a question's answers",
    )
    .addOption(
      new Option("--decision <decision>", "an approval's decision").choices([...INBOX_APPROVAL_DECISIONS]),
    )
    .option(
      "--answer <questionId=text>",
      "a question's answer (repeatable)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .action(async (itemId: string, options, command: Command) => {
      const pairs = options.answer as string[];
      const answers = Object.fromEntries(
        pairs.map((pair) => {
          const at = pair.indexOf("=");
          if (at <= 0) throw new ConnectorError("invalid_input", "--answer takes <questionId>=<text>");
          return [pair.slice(0, at), pair.slice(at + 1)];
        }),
      );
      const opened = await session.openOps(command);
      session.done(
        await opened.answer({
          itemId,
          ...(options.decision === undefined ? {} : { decision: options.decision }),
          ...(pairs.length === 0 ? {} : { answers }),
        }),
      );
    });
};

export const INBOX_COMMANDS: readonly RegisterCommand[] = [registerInbox, registerAnswer];
