import { cliCommandsFor, READ_CONFIG } from "@t3-connector/core/pairing";

/**
 * `environments add|remove|move`, `diagnose` and `pair` of `t3-connector`: the one environments
 * command of the three CLIs (core's pairing, ADR 0058) over the read config, printed as JSON. The
 * CLI imports this module only when one of them runs.
 */
export const runEnvironmentsCommand = cliCommandsFor(READ_CONFIG);
