/**
 * The stable names of `query <name>` and the read tools they run. Kept apart from `queries.ts`,
 * which loads the read tools themselves: a command that runs no read (`ls`, `--help`) pays for
 * none of them.
 */
/** Stable query names → read tool names (the MCP names are the contract's, in Portuguese). */
export const QUERY_TOOLS = {
  thread: "t3_thread",
  threads: "t3_threads",
  search: "t3_buscar_threads",
  messages: "t3_mensagens",
  projects: "t3_projetos",
  providers: "t3_providers",
  attention: "t3_atencao",
  control_plane: "t3_control_plane",
  read_batch: "t3_thread_read_batch",
  wait: "t3_aguardar_thread",
  diff: "t3_diff",
  worktree: "t3_worktree",
} as const;
export type QueryName = keyof typeof QUERY_TOOLS;
export const QUERY_NAMES = Object.keys(QUERY_TOOLS) as QueryName[];

export function isQueryName(name: string): name is QueryName {
  return Object.hasOwn(QUERY_TOOLS, name);
}
