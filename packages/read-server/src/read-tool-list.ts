import { READ_ONLY_ANNOTATIONS, type ReadToolDefinition } from "./read-tool.js";

/**
 * The fifteen read tools, by their contract names. Clients configured for the contract look them
 * up by these names, so the list is checked at start-up: a missing, extra or renamed tool stops
 * the server instead of silently changing what a client can call.
 */
export const READ_TOOL_NAMES = Object.freeze([
  "t3_ambientes",
  "t3_projetos",
  "t3_threads",
  "t3_buscar_threads",
  "t3_atencao",
  "t3_control_plane",
  "t3_thread",
  "t3_thread_read_batch",
  "t3_mensagens",
  "t3_providers",
  "t3_aguardar_thread",
  "t3_since",
  "t3_find_threads",
  "t3_diff",
  "t3_worktree",
] as const);

export type ReadToolName = (typeof READ_TOOL_NAMES)[number];

/** Problems with `definitions` as the server's tool list; empty when it is exactly the fifteen, all read-only. */
export function readToolListProblems(
  definitions: readonly Pick<ReadToolDefinition, "name" | "annotations">[],
): string[] {
  const problems: string[] = [];
  const names = definitions.map((definition) => definition.name);
  const expected = new Set<string>(READ_TOOL_NAMES);
  const missing = READ_TOOL_NAMES.filter((name) => !names.includes(name));
  const unexpected = names.filter((name) => !expected.has(name));
  const repeated = names.filter((name, index) => names.indexOf(name) !== index);
  if (missing.length > 0) problems.push(`missing: ${missing.join(", ")}`);
  if (unexpected.length > 0) problems.push(`not a read tool of the contract: ${unexpected.join(", ")}`);
  if (repeated.length > 0) problems.push(`defined twice: ${[...new Set(repeated)].join(", ")}`);
  for (const definition of definitions) {
    const annotations = definition.annotations as unknown as Record<string, unknown> | undefined;
    const wrong = Object.entries(READ_ONLY_ANNOTATIONS).filter(
      ([hint, value]) => annotations?.[hint] !== value,
    );
    if (wrong.length > 0) {
      problems.push(
        `${definition.name} is not declared read-only (${wrong.map(([hint]) => hint).join(", ")})`,
      );
    }
  }
  return problems;
}

/** Throws unless `definitions` is exactly the fifteen read tools, each declared read-only. */
export function assertReadToolList(definitions: readonly ReadToolDefinition[]): void {
  const problems = readToolListProblems(definitions);
  if (problems.length > 0) {
    throw new Error(`the read tool list is not the contract's fifteen tools: ${problems.join("; ")}`);
  }
}
