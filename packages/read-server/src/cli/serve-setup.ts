import type { LeveledLog } from "@t3-connector/core/cli-support";
import { type CliIo, configPathContext, describeError } from "@t3-connector/core/cli-support";
import { loadReadConfig, noEnvironmentsMessage, type ReadConfig } from "@t3-connector/core/config";
import {
  createProcessReadContext,
  type ProcessReadContextOptions,
  type ReadContext,
} from "../read-context.js";
import { listedReadTools, type ReadTools } from "../read-tool-catalog.js";
import { readToolListProblems } from "../read-tool-list.js";

/**
 * What both `serve` transports (stdio and `--http`) do before serving: check the tool list, load
 * the read config, build the process's read context. A problem comes back as the line to print.
 * `timing` is for tests: where the context's deadlines come from (real timers by default).
 */
export async function prepareServe(
  io: CliIo,
  definitions: ReadTools,
  log: LeveledLog,
  timing: Pick<ProcessReadContextOptions, "deadlines"> = {},
): Promise<{ config: ReadConfig; context: ReadContext } | { problem: string }> {
  const listProblems = readToolListProblems(listedReadTools(definitions));
  if (listProblems.length > 0) {
    return { problem: `refusing to start: the tool list is wrong (${listProblems.join("; ")})` };
  }
  let config: ReadConfig;
  try {
    config = await loadReadConfig(configPathContext(io));
  } catch (error) {
    return { problem: describeError(error) };
  }
  // Not a refusal: the server starts (the client sees its tools), and every call says the same.
  if (config.environments.length === 0)
    log.warn(`t3-connector: ${noEnvironmentsMessage("read", config.path)}`);
  return { config, context: createProcessReadContext({ ...timing, config, log: (line) => log.error(line) }) };
}
