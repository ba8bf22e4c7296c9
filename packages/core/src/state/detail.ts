import { activeRunFromShell } from "./active-run.js";
import { THREAD_MAX_CHARACTERS } from "./bounds.js";
import { type ModelSummary, modelSummary } from "./model.js";
import { keepEnd } from "./text.js";
import { parseInstant } from "./time.js";
import type {
  HistoryBoundsInput,
  MessageInput,
  ProviderSessionInput,
  RunInput,
  ShellThreadInput,
  ThreadProjectionInput,
} from "./types.js";

/** The run working now; `model` is the one it was requested with (fixed at request time). */
export interface ActiveRunDetail {
  runId: string | null;
  ordinal: number | null;
  status: string;
  model: ModelSummary | null;
}

/** The newest run, from the shell (a bounded snapshot may omit runs). Informational. */
export interface LatestRunDetail {
  runId: string;
  ordinal: number | null;
  status: string | null;
}

/** The provider process as last reported: informational, never decides model or state. */
export interface ProviderSessionDetail {
  status: string | null;
  directory: string | null;
  model: string | null;
  informational: true;
  note?: string;
}

export interface LatestResponse {
  messageId: string | null;
  runId: string | null;
  text: string;
  truncated: boolean;
  streaming: boolean;
  updatedAt: string | null;
}

export interface HistoryBounds {
  complete: boolean;
  payloadBudgetExceeded: boolean;
}

/** The `t3_thread` fields beyond the summary. */
export interface ThreadDetailFields {
  providerSession: ProviderSessionDetail | null;
  activeRun: ActiveRunDetail | null;
  latestRun: LatestRunDetail | null;
  latestResponse: LatestResponse | null;
  history: HistoryBounds;
}

export interface DetailOptions {
  /** Limits `latestResponse` only (never request questions or options). */
  maxCharacters?: number;
  /** The canonical model of the thread (its summary's `model`), for the provider-session note. */
  threadModel?: ModelSummary;
}

function findRun(projection: ThreadProjectionInput, runId: string | null): RunInput | undefined {
  if (!runId) return undefined;
  return (projection.runs ?? []).find((run) => run.id === runId);
}

function ordinalOf(run: RunInput | undefined): number | null {
  return typeof run?.ordinal === "number" ? run.ordinal : null;
}

export function activeRunDetail(
  shell: ShellThreadInput,
  projection: ThreadProjectionInput,
): ActiveRunDetail | null {
  const active = activeRunFromShell(shell);
  if (!active) return null;
  const run = findRun(projection, active.runId);
  return {
    runId: active.runId,
    ordinal: ordinalOf(run),
    status: run?.status ?? active.status,
    model: run?.modelSelection ? modelSummary(run.modelSelection) : null,
  };
}

export function latestRunDetail(
  shell: ShellThreadInput,
  projection: ThreadProjectionInput,
): LatestRunDetail | null {
  if (!shell.latestRunId) return null;
  return {
    runId: shell.latestRunId,
    ordinal: ordinalOf(findRun(projection, shell.latestRunId)),
    status: shell.status ?? null,
  };
}

function newestBy<T>(items: readonly T[], instant: (item: T) => unknown): T | undefined {
  let best: T | undefined;
  let bestMs = Number.NEGATIVE_INFINITY;
  for (const item of items) {
    const ms = parseInstant(instant(item)) ?? Number.NEGATIVE_INFINITY;
    // `>=`: on equal (or missing) times the later array entry is the newer one.
    if (best === undefined || ms >= bestMs) {
      best = item;
      bestMs = ms;
    }
  }
  return best;
}

export function providerSessionDetail(
  shell: ShellThreadInput,
  projection: ThreadProjectionInput,
  canonicalModel: string | null,
): ProviderSessionDetail | null {
  const instanceId = shell.providerInstanceId;
  // Without the thread's instance no session can be attributed to it (another instance's session
  // would report a foreign model and directory).
  if (!instanceId) return null;
  const sessions = (projection.providerSessions ?? []).filter(
    (session) => session.providerInstanceId === instanceId,
  );
  const session: ProviderSessionInput | undefined = newestBy(sessions, (candidate) => candidate.updatedAt);
  if (!session) return null;
  const model = session.model ?? session.modelSelection?.model ?? null;
  const detail: ProviderSessionDetail = {
    status: session.status ?? null,
    directory: session.cwd ?? null,
    model,
    informational: true,
  };
  if (model !== null && canonicalModel !== null && model !== canonicalModel) {
    detail.note = `The provider session last reported model ${model}; the canonical model is ${canonicalModel}.`;
  }
  return detail;
}

function hasText(message: MessageInput): message is MessageInput & { text: string } {
  return typeof message.text === "string" && message.text.length > 0;
}

/**
 * The newest assistant message with text, keeping its END (the news is at the end of a response):
 * "…" followed by the last `maxCharacters` characters, mirroring the "first N plus …" cut of
 * `t3_mensagens`.
 */
export function latestResponse(
  projection: ThreadProjectionInput,
  maxCharacters: number = THREAD_MAX_CHARACTERS.default,
): LatestResponse | null {
  const candidates = (projection.messages ?? []).filter(
    (message) => message.role === "assistant" && hasText(message),
  );
  const message = newestBy(candidates, (candidate) => candidate.createdAt ?? candidate.updatedAt);
  if (!message || !hasText(message)) return null;
  const cut = keepEnd(message.text, maxCharacters);
  return {
    messageId: message.id ?? null,
    runId: message.runId ?? null,
    text: cut.text,
    truncated: cut.truncated,
    // Reported, but never used to decide the state.
    streaming: message.streaming === true,
    updatedAt: message.updatedAt ?? null,
  };
}

/** A full snapshot has no history fields and is complete; a bounded one says whether more exists. */
export function historyBounds(bounds: HistoryBoundsInput | null | undefined): HistoryBounds {
  return {
    complete: !bounds?.hasMoreHistory,
    payloadBudgetExceeded: Boolean(bounds?.payloadBudgetExceeded),
  };
}

export function threadDetailFields(
  shell: ShellThreadInput,
  projection: ThreadProjectionInput,
  bounds: HistoryBoundsInput | null | undefined,
  options: DetailOptions = {},
): ThreadDetailFields {
  const activeRun = activeRunDetail(shell, projection);
  const canonicalModel =
    activeRun?.model?.model ?? options.threadModel?.model ?? shell.modelSelection?.model ?? null;
  return {
    providerSession: providerSessionDetail(shell, projection, canonicalModel),
    activeRun,
    latestRun: latestRunDetail(shell, projection),
    latestResponse: latestResponse(projection, options.maxCharacters),
    history: historyBounds(bounds),
  };
}
