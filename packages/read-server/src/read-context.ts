import { type Clock, systemClock } from "@t3-connector/core";

/**
 * What a read tool may use. The tools receive this and nothing else, so that a test can hand them
 * a context built from fakes and so that the MCP layer never reaches into config files or the
 * environment registry directly.
 *
 * It is deliberately small for now; it grows with the tools (the environment registry, the read
 * config and the process's cursor codec are added when those modules land).
 */
export interface ReadContext {
  readonly clock: Clock;
  /** Operator log (stderr in the CLI). Never protocol output, never secrets. */
  log(line: string): void;
}

export interface ProcessReadContextOptions {
  clock?: Clock;
  log?: (line: string) => void;
}

/** The context of a real `t3-connector serve` process. */
export function createProcessReadContext(options: ProcessReadContextOptions = {}): ReadContext {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  return { clock: options.clock ?? systemClock, log };
}
