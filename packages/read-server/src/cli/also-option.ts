import { OPERATE_CONFIG_NAMES, type OperateConfigName, usageProblem } from "@t3-connector/core/cli-support";

/**
 * `environments add --also write,ops|write|ops|none`: the other configs of this machine that the
 * same command fills (the gate's write.json, ops' ops.json), with an operate token from a second
 * pairing code. `none` is an answer too: it skips the question a terminal would otherwise ask.
 */
export function parseAlsoOption(value: string | undefined): OperateConfigName[] | undefined {
  if (value === undefined) return undefined;
  if (value === "none") return [];
  const names = value.split(",").map((name) => name.trim());
  const known: readonly string[] = OPERATE_CONFIG_NAMES;
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0 || names.length === 0) {
    throw usageProblem(`--also takes write, ops, write,ops or none (not ${unknown.join(", ") || value})`);
  }
  return [...new Set(names as OperateConfigName[])];
}
