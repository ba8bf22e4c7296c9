import type { ReadToolDefinition } from "../read-tool.js";
import type { ReadToolName } from "../read-tool-list.js";

/**
 * Each read tool's module, loaded with import() when the tool is first called: a spawned `serve`
 * lists its tools from the tables generated ahead of time (read-tool-catalog.ts) and builds no
 * tool's schemas, nor loads its answer's modules, before a call needs them (docs/adr/0060). Keyed
 * by the contract's names, so a tool added to READ_TOOL_NAMES without a loader does not compile;
 * test/framework/read-tool-catalog.test.ts holds that each loader gives the tool of tools/index.ts.
 */
export const READ_TOOL_LOADERS: Readonly<Record<ReadToolName, () => Promise<ReadToolDefinition>>> = {
  t3_ambientes: async () => (await import("./t3_ambientes.js")).t3AmbientesTool,
  t3_projetos: async () => (await import("./t3_projetos.js")).t3ProjetosTool,
  t3_threads: async () => (await import("./t3_threads.js")).t3ThreadsTool,
  t3_buscar_threads: async () => (await import("./t3_buscar_threads.js")).t3BuscarThreadsTool,
  t3_atencao: async () => (await import("./t3_atencao.js")).t3AtencaoTool,
  t3_control_plane: async () => (await import("./t3_control_plane.js")).t3ControlPlaneTool,
  t3_thread: async () => (await import("./t3_thread.js")).t3ThreadTool,
  t3_thread_read_batch: async () => (await import("./t3_thread_read_batch.js")).t3ThreadReadBatchTool,
  t3_mensagens: async () => (await import("./t3_mensagens.js")).t3MensagensTool,
  t3_providers: async () => (await import("./t3_providers.js")).t3ProvidersTool,
  t3_aguardar_thread: async () => (await import("./t3_aguardar_thread.js")).t3AguardarThreadTool,
  t3_since: async () => (await import("./t3_since.js")).t3SinceTool,
  t3_find_threads: async () => (await import("./t3_find_threads.js")).t3FindThreadsTool,
  t3_diff: async () => (await import("./t3_diff.js")).t3DiffTool,
  t3_worktree: async () => (await import("./t3_worktree.js")).t3WorktreeTool,
};
