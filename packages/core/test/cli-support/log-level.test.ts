import { describe, expect, it } from "vitest";
import {
  DEFAULT_LOG_LEVEL,
  type LogLevel,
  leveledLog,
  logLevelOption,
  parseCommandLine,
} from "../../src/cli-support/index.js";

/** `--log-level` as a command that declares it reads it: `{ logLevel }` or `{ problem }`. */
function parseLogLevelArgs(args: readonly string[]) {
  const outcome = parseCommandLine<{ logLevel: LogLevel }>(
    ["serve", ...args],
    (program, found) => {
      program
        .command("serve")
        .addOption(logLevelOption())
        .action((options: { logLevel?: LogLevel }) =>
          found({ logLevel: options.logLevel ?? DEFAULT_LOG_LEVEL }),
        );
    },
    { name: "test" },
  );
  return outcome.kind === "parsed"
    ? outcome.value
    : { problem: outcome.kind === "problem" ? outcome.problem : "" };
}

describe("--log-level", () => {
  it("writes a line only when its level is at or above the chosen one", () => {
    const written: string[] = [];
    const log = leveledLog((text) => written.push(text), "warn");
    log.error("stopped");
    log.warn("beta is down");
    log.info("banner");
    log.debug("detail");
    expect(written).toEqual(["stopped\n", "beta is down\n"]);
  });

  it("defaults to info and refuses an unknown level naming the choices", () => {
    expect(parseLogLevelArgs([])).toEqual({ logLevel: "info" });
    expect(parseLogLevelArgs(["--log-level=debug"])).toEqual({ logLevel: "debug" });
    expect(parseLogLevelArgs(["--log-level", "loud"])).toEqual({
      problem: "--log-level takes one of error, warn, info, debug",
    });
  });
});
