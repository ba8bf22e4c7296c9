import type { ReadToolDefinition } from "../read-tool.js";
import { t3ThreadsTool } from "./t3_threads.js";
import { t3ThreadTool } from "./t3_thread.js";

/**
 * Every read tool the server exposes, one file per tool, in the order of the contract. `serve`
 * checks at start-up that this is exactly the eleven tools of READ_TOOL_NAMES, all read-only.
 * Not written yet: t3_ambientes, t3_projetos, t3_buscar_threads, t3_atencao, t3_control_plane, t3_thread_read_batch, t3_mensagens, t3_providers, t3_aguardar_thread (start-up refuses until the list is complete).
 */
export const readToolDefinitions: readonly ReadToolDefinition[] = [
  t3ThreadsTool,
  t3ThreadTool,
];
