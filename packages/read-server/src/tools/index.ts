/**
 * @module The read tools alone (`@t3-connector/read-server/tools`): what ops runs in one
 * environment, without the server, its HTTP edge, OAuth or the CLI of the package's root entry.
 */
import type { ReadToolDefinition } from "../read-tool.js";
import { t3AguardarThreadTool } from "./t3_aguardar_thread.js";
import { t3AmbientesTool } from "./t3_ambientes.js";
import { t3AtencaoTool } from "./t3_atencao.js";
import { t3BuscarThreadsTool } from "./t3_buscar_threads.js";
import { t3ControlPlaneTool } from "./t3_control_plane.js";
import { t3DiffTool } from "./t3_diff.js";
import { t3FindThreadsTool } from "./t3_find_threads.js";
import { t3MensagensTool } from "./t3_mensagens.js";
import { t3ProjetosTool } from "./t3_projetos.js";
import { t3ProvidersTool } from "./t3_providers.js";
import { t3SinceTool } from "./t3_since.js";
import { t3ThreadTool } from "./t3_thread.js";
import { t3ThreadReadBatchTool } from "./t3_thread_read_batch.js";
import { t3ThreadsTool } from "./t3_threads.js";
import { t3WorktreeTool } from "./t3_worktree.js";

export type { ReadContext } from "../read-context.js";
export type { ReadToolDefinition, ReadToolExtra } from "../read-tool.js";

/**
 * Every read tool the server exposes, one file per tool, in the order of the contract. `serve`
 * checks at start-up that this is exactly the fifteen tools of READ_TOOL_NAMES, all read-only.
 */
export const readToolDefinitions: readonly ReadToolDefinition[] = [
  t3AmbientesTool,
  t3ProjetosTool,
  t3ThreadsTool,
  t3BuscarThreadsTool,
  t3AtencaoTool,
  t3ControlPlaneTool,
  t3ThreadTool,
  t3ThreadReadBatchTool,
  t3MensagensTool,
  t3ProvidersTool,
  t3AguardarThreadTool,
  t3SinceTool,
  t3FindThreadsTool,
  t3DiffTool,
  t3WorktreeTool,
];
