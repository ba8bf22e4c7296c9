/**
 * The answers of the five reads both MCP servers serve under one name (t3_projetos, t3_threads,
 * t3_atencao, t3_thread, t3_mensagens), built once over a `ReadSource`, with the listing pieces
 * they share with the read server's other tools. The read server supplies a source over its
 * registry and live mirrors, the write bridge one over the gate's leased read (ADR 0072).
 */
export { t3Atencao } from "./attention.js";
export { attentionRows, controlPlaneRows } from "./indexed-rows.js";
export { t3Mensagens } from "./messages.js";
export { answeredIds, checkCursor, envelopeFields, pageFields, pageOf } from "./paging.js";
export { projectNotAvailable, projectNotAvailableAnywhere, showsProject } from "./project-filter.js";
export { t3Projetos } from "./projects.js";
export type {
  EnvironmentDiscovery,
  FetchedProjection,
  ListingEnvelope,
  ReadSource,
  SweepResult,
  ThreadReadSource,
  VisibleThread,
} from "./read-source.js";
export { type ThreadTurnReader, withSecretsFromThreads } from "./secrets-from-threads.js";
export {
  cachedThreadSummary,
  type ItemEnvironment,
  projectsById,
  type ShellView,
  searchableThreads,
  stateRow,
  type ThreadItem,
  threadIndexOf,
  threadItem,
  threadItems,
  visibleProjects,
  visibleThreads,
} from "./shell-view.js";
export { threadPageShare } from "./thread-page-share.js";
export { buildThreadRead, type ThreadDetailOptions, t3Thread } from "./thread-read.js";
export { t3Threads } from "./threads.js";
export { defineSharedReadTool, type SharedReadTool } from "./tool.js";

import { t3Atencao } from "./attention.js";
import { t3Mensagens } from "./messages.js";
import { t3Projetos } from "./projects.js";
import { t3Thread } from "./thread-read.js";
import { t3Threads } from "./threads.js";

/** The five, by tool name. */
export const SHARED_READ_TOOLS = {
  t3_projetos: t3Projetos,
  t3_threads: t3Threads,
  t3_atencao: t3Atencao,
  t3_thread: t3Thread,
  t3_mensagens: t3Mensagens,
} as const;
