/**
 * How a simulated provider behaves during one run.
 *
 * Every run follows a script: by default it starts after ~5 ms, streams one partial assistant
 * message, finishes it, goes `waiting` and completes with a checkpoint, ~50 ms in all. A test
 * can queue a script with `model.scriptNextRun(threadId, script)`, or a message can carry
 * directives (they stay in the stored text, as a real provider would see them):
 *
 *   [[sim:ask]]              ask a user_input question (live); resumes on runtime-request.respond {answers}
 *   [[sim:ask-message]]      ask a question answered by a message (responseMode "message"); the run completes
 *   [[sim:approval]]         ask a command approval; resumes on runtime-request.respond {decision}
 *   [[sim:approval=KIND]]    same with requestKind KIND (file-change, file-read, permission, mcp-elicitation)
 *   [[sim:plan]]             end with an actionable proposed plan
 *   [[sim:fail]] / [[sim:fail=TEXT]]   fail with a provider error (lastError TEXT)
 *   [[sim:hang]]             start, stream a partial reply and keep running until interrupted
 *   [[sim:stall]]            never leave "starting" (like 0.0.31 with no provider CLI, fixture 22)
 *   [[sim:delay=MS]]         take MS milliseconds between running and the final reply
 *   [[sim:reply=TEXT]]       reply with TEXT
 *
 * and what the run changes in its folder (the checkpoint and T3's diffs then show it; without
 * any, a run appends one line to src/index.ts):
 *
 *   [[sim:edit=PATH]] / [[sim:edit=PATH|LINE]]   append a line to PATH (made if absent)
 *   [[sim:delete=PATH]]                          delete PATH
 *   [[sim:rename=FROM|TO]]                       move FROM to TO unchanged
 *   [[sim:bulk=FILES|BYTES]]                     add FILES generated files of about BYTES each
 *                                                (a large diff: 2000|2600 is 2,000 files, 5 MB)
 */
import type { ModelSelection, Run } from "./types.js";
import type { SimEdit } from "./workspace-files.js";

export type ApprovalKind = "command" | "file-read" | "file-change" | "permission" | "mcp-elicitation";

export interface UserInputQuestion {
  id: string;
  header: string;
  question: string;
  options: { label: string; description: string; value?: string }[];
  multiSelect?: boolean;
  allowCustomAnswer?: boolean;
  required?: boolean;
}

export interface RunScript {
  /** Milliseconds from `starting` to `running` (default 5). */
  startDelayMs?: number;
  /** Milliseconds from `running` to the final reply; a streaming partial comes halfway (default 30). */
  replyDelayMs?: number;
  reply?: string;
  stall?: boolean;
  approval?: boolean | { requestKind?: ApprovalKind; prompt?: string };
  ask?: boolean | { questions?: UserInputQuestion[]; responseMode?: "message" };
  plan?: boolean | string;
  outcome?: "complete" | "fail" | "hang";
  failure?: {
    message?: string;
    class?: "provider_error" | "transport_error" | "permission_error" | "unknown";
  };
  /** What the run changes in its folder; default `defaultEdits`. */
  edits?: SimEdit[];
}

const EDIT_DIRECTIVE = /\[\[sim:(edit|delete|rename|bulk)=([^\]]*)\]\]/g;

/** The edits a message's directives name, in order; undefined when it names none. */
export function editsFromText(text: string): SimEdit[] | undefined {
  const edits: SimEdit[] = [];
  for (const [, name, value = ""] of text.matchAll(EDIT_DIRECTIVE)) {
    const [first = "", second] = value.split("|");
    if (first === "") continue;
    if (name === "edit")
      edits.push({ kind: "append", path: first, line: second ?? "a line the simulated agent added" });
    else if (name === "delete") edits.push({ kind: "delete", path: first });
    else if (name === "rename" && second) edits.push({ kind: "rename", path: first, to: second });
    else if (name === "bulk") {
      const files = Math.min(100_000, Math.max(1, Number(first) || 1));
      const bytesPerFile = Math.min(1_000_000, Math.max(1, Number(second) || 100));
      edits.push({ kind: "bulk", files, bytesPerFile, tag: `bulk${edits.length}` });
    }
  }
  return edits.length > 0 ? edits : undefined;
}

/** A run that names no edit appends one line of its own to src/index.ts. */
export function defaultEdits(run: Pick<Run, "ordinal">): SimEdit[] {
  return [{ kind: "append", path: "src/index.ts", line: `// changed by run ${run.ordinal}` }];
}

const DIRECTIVE = /\[\[sim:([a-z-]+)(?:=([^\]]*))?\]\]/g;

export function stripDirectives(text: string): string {
  return text.replace(DIRECTIVE, "").replace(/\s+/g, " ").trim();
}

/** Reads `[[sim:…]]` directives; returns undefined when the text has none. */
export function scriptFromDirectives(text: string): RunScript | undefined {
  const script: RunScript = {};
  let found = false;
  for (const match of text.matchAll(DIRECTIVE)) {
    found = true;
    const [, name, value] = match;
    switch (name) {
      case "ask":
        script.ask = true;
        break;
      case "ask-message":
        script.ask = { responseMode: "message" };
        break;
      case "approval":
        script.approval = value ? { requestKind: value as ApprovalKind } : true;
        break;
      case "plan":
        script.plan = true;
        break;
      case "fail":
        script.outcome = "fail";
        if (value) script.failure = { message: value };
        break;
      case "hang":
        script.outcome = "hang";
        break;
      case "stall":
        script.stall = true;
        break;
      case "delay":
        script.replyDelayMs = Math.max(0, Number(value) || 0);
        break;
      case "reply":
        script.reply = value ?? "";
        break;
      default:
        found = true;
    }
  }
  return found ? script : undefined;
}

/** The per-model default: a short reply that names the model, after ~50 ms. */
export function defaultScript(model: ModelSelection, userText: string): RunScript {
  const topic = stripDirectives(userText).slice(0, 120);
  return { reply: `[${model.model}] Done. ${topic ? `You asked: "${topic}".` : ""}`.trim() };
}

export const DEFAULT_QUESTIONS: UserInputQuestion[] = [
  {
    id: "scope",
    header: "Scope",
    question: "Which part of the workspace should I change?",
    options: [
      { label: "Only the tests", description: "Touch files under test/ only", value: "tests" },
      { label: "Source and tests", description: "Change source files and their tests", value: "all" },
    ],
    allowCustomAnswer: true,
    required: true,
  },
];

export const DEFAULT_APPROVAL_OPTIONS = [
  { decision: "accept", label: "Run it" },
  { decision: "acceptForSession", label: "Always allow in this session" },
  { decision: "decline", label: "Don't run" },
];

export const DEFAULT_PLAN = [
  "## Proposed plan",
  "",
  "1. Read the failing test output.",
  "2. Fix the parser edge case.",
  "3. Add a regression test.",
].join("\n");
