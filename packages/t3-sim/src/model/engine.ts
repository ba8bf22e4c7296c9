/**
 * The run engine: plays each run's script on the SimClock (never on real timers of its own), one
 * commit per provider step, and starts queued runs in order when the active run ends.
 */
import type { SimClock, SimTimer } from "../clock.js";
import { recordTurnStarted } from "./agent-work.js";
import { activeRun, queuedRuns } from "./projection.js";
import {
  beginProviderTurn,
  completeWithCheckpoint,
  enterWaiting,
  failRun,
  openRuntimeRequest,
  proposePlan,
  upsertAssistant,
} from "./provider-steps.js";
import { promoteToStarting } from "./runs.js";
import {
  defaultEdits,
  defaultScript,
  editsFromText,
  type RunScript,
  scriptFromDirectives,
} from "./scripts.js";
import type { SimStore, ThreadRecord, Tx } from "./store.js";
import { BLOCKING_RUN_STATUSES, type ModelSelection, type Run } from "./types.js";

interface Step {
  readonly delayMs: number;
  /** The run waits here until `resume` (an answered runtime request). */
  readonly pause?: boolean;
  readonly apply: (tx: Tx, run: Run, program: Program) => void;
}

interface Program {
  readonly threadId: string;
  readonly runId: string;
  readonly attemptId: string | null;
  readonly script: RunScript;
  readonly messageId: string;
  readonly steps: Step[];
  cursor: number;
  paused: boolean;
  timer?: SimTimer;
  /** What the user answered, so the reply can mention it. */
  response?: { decision?: string; answers?: Record<string, unknown> };
}

export function cwdOf(store: SimStore, record: ThreadRecord): string {
  return record.thread.worktreePath ?? store.projects.get(record.thread.projectId)?.workspaceRoot ?? "/";
}

function replyText(program: Program, run: Run): string {
  const base = program.script.reply ?? defaultScript(run.modelSelection, "").reply ?? "Done.";
  const response = program.response;
  if (response?.decision === "decline" || response?.decision === "cancel") {
    return `I did not run the command (${response.decision}). ${base}`;
  }
  if (response?.answers) return `Thanks for the answer (${JSON.stringify(response.answers)}). ${base}`;
  return base;
}

function buildSteps(script: RunScript): Step[] {
  if (script.stall) return [];
  const replyDelay = script.replyDelayMs ?? 30;
  const steps: Step[] = [
    { delayMs: script.startDelayMs ?? 5, apply: (tx, run) => void beginProviderTurn(tx, run) },
  ];
  if (script.approval) {
    const spec = typeof script.approval === "object" ? script.approval : {};
    steps.push({
      delayMs: 5,
      pause: true,
      apply: (tx, run) => void openRuntimeRequest(tx, run, { kind: "approval", ...spec }),
    });
  }
  if (script.ask) {
    const spec = typeof script.ask === "object" ? script.ask : {};
    steps.push({
      delayMs: 5,
      pause: spec.responseMode !== "message",
      apply: (tx, run) => void openRuntimeRequest(tx, run, { kind: "user_input", ...spec }),
    });
  }
  if (script.outcome === "fail") {
    const message = script.failure?.message ?? "The provider process exited unexpectedly (exit code 1).";
    steps.push({
      delayMs: replyDelay,
      apply: (tx, run) => void failRun(tx, run, message, script.failure?.class ?? "provider_error"),
    });
    return steps;
  }
  steps.push({
    delayMs: Math.floor(replyDelay / 2),
    apply: (tx, run, program) => {
      const words = replyText(program, run).split(" ");
      upsertAssistant(
        tx,
        run,
        program.messageId,
        words.slice(0, Math.ceil(words.length / 2)).join(" "),
        true,
      );
    },
  });
  if (script.outcome === "hang") return steps;
  steps.push({
    delayMs: Math.ceil(replyDelay / 2),
    apply: (tx, run, program) => upsertAssistant(tx, run, program.messageId, replyText(program, run), false),
  });
  if (script.plan) {
    const markdown = typeof script.plan === "string" ? script.plan : undefined;
    steps.push({ delayMs: 1, apply: (tx, run) => proposePlan(tx, run, markdown) });
  }
  steps.push({ delayMs: 5, apply: (tx, run) => void enterWaiting(tx, run) });
  steps.push({
    delayMs: 10,
    apply: (tx, run, program) =>
      void completeWithCheckpoint(tx, run, program.script.edits ?? defaultEdits(run)),
  });
  return steps;
}

export class RunEngine {
  readonly #programs = new Map<string, Program>();
  readonly #nextScripts = new Map<string, RunScript[]>();
  readonly #assigned = new Map<string, RunScript>();
  readonly #endHooks: ((record: ThreadRecord) => void)[] = [];

  constructor(
    private readonly store: SimStore,
    private readonly clock: SimClock,
  ) {}

  scriptNextRun(threadId: string, script: RunScript): void {
    const queue = this.#nextScripts.get(threadId) ?? [];
    queue.push(script);
    this.#nextScripts.set(threadId, queue);
  }

  /** Picks the script for a new run: a queued test script, else message directives, else the default. */
  assign(threadId: string, runId: string, model: ModelSelection, text: string): void {
    const chosen = this.#nextScripts.get(threadId)?.shift() ?? scriptFromDirectives(text) ?? {};
    // A script that names no reply keeps the model's default one; edits named in the message
    // apply whatever script plays the run.
    const edits = chosen.edits ?? editsFromText(text);
    this.#assigned.set(runId, { ...defaultScript(model, text), ...chosen, ...(edits ? { edits } : {}) });
  }

  /** Re-scripts a run whose attempt restarts (restart_active) from the new message. */
  reassign(threadId: string, runId: string, model: ModelSelection, text: string): void {
    this.stop(runId);
    this.assign(threadId, runId, model, text);
  }

  /** Begins playing a run that just became `starting`. */
  start(record: ThreadRecord, run: Run): void {
    recordTurnStarted(this.store, record, run.id);
    const script = this.#assigned.get(run.id) ?? defaultScript(run.modelSelection, "");
    const program: Program = {
      threadId: record.thread.id,
      runId: run.id,
      attemptId: run.activeAttemptId,
      script,
      messageId: this.store.ids.uuid(),
      steps: buildSteps(script),
      cursor: 0,
      paused: false,
    };
    this.#programs.set(run.id, program);
    this.#schedule(program);
  }

  /** An answered runtime request lets a paused run go on. */
  resume(runId: string, response: Program["response"]): void {
    const program = this.#programs.get(runId);
    if (!program) return;
    program.response = { ...program.response, ...response };
    if (!program.paused) return;
    program.paused = false;
    this.#schedule(program);
  }

  stop(runId: string): void {
    const program = this.#programs.get(runId);
    program?.timer?.cancel();
    this.#programs.delete(runId);
  }

  stopThread(threadId: string): void {
    for (const program of [...this.#programs.values()])
      if (program.threadId === threadId) this.stop(program.runId);
  }

  isPlaying(runId: string): boolean {
    return this.#programs.has(runId);
  }

  /**
   * Plays a run's remaining steps now, ignoring their delays, until it pauses, ends, or `until`
   * holds (seeds and benchmarks use this to build history without moving the clock).
   */
  fastForward(runId: string, until?: (run: Run) => boolean): void {
    for (;;) {
      const program = this.#programs.get(runId);
      if (!program || program.paused || program.cursor >= program.steps.length) return;
      program.timer?.cancel();
      this.#runStep(program);
      const run = this.store.threads.get(program.threadId)?.runs.get(runId);
      if (run && until?.(run)) {
        const current = this.#programs.get(runId);
        if (current) {
          current.timer?.cancel();
          this.#schedule(current);
        }
        return;
      }
    }
  }

  /** Called after a thread's run ended (delegated tasks report back to their parent). */
  onRunEnded(hook: (record: ThreadRecord) => void): void {
    this.#endHooks.push(hook);
  }

  /** A run of `record` just ended: tell the hooks, then start the next queued run. */
  runEnded(record: ThreadRecord): void {
    for (const hook of this.#endHooks) hook(record);
    this.advanceQueue(record);
  }

  /** Starts the first queued run when the provider is free and the queue is not held. */
  advanceQueue(record: ThreadRecord): void {
    if (record.thread.deletedAt || record.queueHeld || activeRun(record)) return;
    const next = queuedRuns(record)[0];
    if (!next) return;
    let started: Run | undefined;
    this.store.transact(record, null, (tx) => {
      started = promoteToStarting(tx, next, cwdOf(this.store, record));
    });
    if (started) this.start(record, started);
  }

  #schedule(program: Program): void {
    const step = program.steps[program.cursor];
    if (!step) {
      this.#programs.delete(program.runId);
      return;
    }
    program.timer = this.clock.setTimer(step.delayMs, () => {
      program.timer = undefined;
      if (this.#programs.get(program.runId) !== program) return;
      this.#runStep(program);
    });
  }

  #runStep(program: Program): void {
    const step = program.steps[program.cursor];
    const record = this.store.liveThread(program.threadId);
    const run = record?.runs.get(program.runId);
    if (
      !step ||
      !record ||
      !run ||
      !BLOCKING_RUN_STATUSES.includes(run.status) ||
      run.activeAttemptId !== program.attemptId
    ) {
      this.#programs.delete(program.runId);
      return;
    }
    this.store.transact(record, null, (tx) => step.apply(tx, run, program));
    program.cursor += 1;
    const after = record.runs.get(program.runId);
    if (!after || !BLOCKING_RUN_STATUSES.includes(after.status)) {
      this.#programs.delete(program.runId);
      this.runEnded(record);
      return;
    }
    if (step.pause) {
      program.paused = true;
      return;
    }
    this.#schedule(program);
  }
}
