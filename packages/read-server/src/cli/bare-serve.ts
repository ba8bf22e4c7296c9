import { DEFAULT_LOG_LEVEL } from "@t3-connector/core/cli-support";
import type { CliCommand } from "./args.js";

/**
 * The command of `t3-connector serve` with nothing after it, the line an MCP client spawns, read
 * without the command-line parser: commander and every command's declaration are most of what
 * the CLI loads before `serve` can start (docs/adr/0060). Any other line, `serve` with a flag
 * included, goes through the parser (`parseCliArgs`); test/cli/args.test.ts holds that both read
 * this line the same.
 */
export function bareServe(
  argv: readonly string[],
): (Extract<CliCommand, { kind: "serve" }> & { warnings?: readonly string[] }) | undefined {
  return argv.length === 1 && argv[0] === "serve"
    ? { kind: "serve", logLevel: DEFAULT_LOG_LEVEL }
    : undefined;
}
