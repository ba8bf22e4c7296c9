import { cliCommandsFor, WRITE_CONFIG } from "@t3-connector/core/pairing";

/**
 * `environments add|remove|move`, `diagnose` and `pair` of `t3-connector-write`: the one
 * environments command of the three CLIs (core's pairing, ADR 0058) over write.json, printed as
 * JSON. The CLI imports this module only when one of them runs.
 */
export const runEnvironmentsCommand = cliCommandsFor(WRITE_CONFIG);
