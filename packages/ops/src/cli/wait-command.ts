/** `wait`: blocks until a thread's run needs nothing more; the outcome is the exit code. */
import type { Command } from "commander";
import { DEFAULT_WAIT_TIMEOUT_MS } from "../command-constants.js";
import type { RegisterCommand } from "./command-table.js";
import { EXAMPLES } from "./examples.js";

export const registerWait: RegisterCommand = (program, session) => {
  program
    .command("wait <ref>")
    .description(
      "block until the thread needs nothing from its run: exit 0 done, 2 needs a human, 3 failed, 4 timeout",
    )
    .option("--timeout <ms>", "deadline in milliseconds", String(DEFAULT_WAIT_TIMEOUT_MS))
    .addHelpText("after", EXAMPLES.wait)
    .action(async (ref: string, options, command: Command) => {
      const { env } = session.globals(command);
      const timeoutMs = Number(options.timeout);
      const result = await (await session.openOps(command)).wait(ref, {
        timeoutMs,
        ...(env === undefined ? {} : { environment: env }),
      });
      session.done(
        result,
        (value: typeof result) => `${value.outcome}: ${value.title} (${value.state})\n`,
        result.exitCode,
      );
    });
};
