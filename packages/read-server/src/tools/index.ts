import type { ReadToolDefinition } from "../read-tool.js";

/**
 * Every read tool the server exposes, one file per tool. Empty until the tools land (they need the
 * environment registry, the T3 client and the state projection).
 */
export const readToolDefinitions: readonly ReadToolDefinition[] = [];
