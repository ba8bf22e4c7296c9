/**
 * ops.json as the one environments command (core's pairing, ADR 0058) sees it: core holds the
 * command and what every file shares, ops its own schema (extra names, `insecureHttp`).
 */
import { opsConfigKind } from "@t3-connector/core/pairing";
import { loadOpsConfig, parseOpsConfig } from "./config.js";

export const OPS_CONFIG = opsConfigKind({ parse: parseOpsConfig, load: loadOpsConfig });
