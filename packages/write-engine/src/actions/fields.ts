/**
 * Field schemas shared by the write actions. Every object here is strict: an unknown key (an old
 * Portuguese parameter, a T3 field the connector does not forward) is refused, never stripped.
 */
import { z } from "zod";

/** Bounds. Text and attachment limits are T3's own (`PROVIDER_SEND_TURN_MAX_*`). */
export const MAX_ID_CHARS = 1024;
export const MAX_TEXT_CHARS = 120_000;
export const MAX_ATTACHMENTS = 8;
export const MAX_TITLE_CHARS = 1024;
export const MAX_REASON_CHARS = 2000;
export const MAX_MODEL_OPTIONS = 64;
export const MAX_ANSWERS = 100;

/** A T3 id (thread, project, run, request, …): trimmed, 1-1024 characters. Run ids are not UUIDs. */
export const idString = z.string().trim().min(1).max(MAX_ID_CHARS);

/** An id whose absence gets a stable, named error instead of zod's generic one. */
export function requiredId(code: string) {
  return z
    .string({ error: (issue) => (issue.input === undefined ? `${code}: this field is required` : undefined) })
    .trim()
    .min(1)
    .max(MAX_ID_CHARS);
}

export const messageText = z.string().min(1).max(MAX_TEXT_CHARS);
export const titleText = z.string().trim().min(1).max(MAX_TITLE_CHARS);
export const reasonText = z.string().trim().min(1).max(MAX_REASON_CHARS);
/**
 * ISO 8601 date-time with `Z` or an offset; builders normalise it to UTC before sending. A date
 * alone is refused, not guessed (which day's end, in which zone?): the message shows the form.
 */
export const isoDateTime = z.iso.datetime({
  offset: true,
  error:
    "expected an ISO date-time with a time zone, such as 2026-12-04T18:00:00Z or 2026-12-04T18:00:00+01:00",
});

export const RUNTIME_MODES = ["approval-required", "auto-accept-edits", "auto", "full-access"] as const;
export const runtimeMode = z.enum(RUNTIME_MODES);
export type RuntimeMode = z.infer<typeof runtimeMode>;
/**
 * T3's own default runtime mode. A launch or delegated task that omits its mode runs at the
 * ceiling of whoever sends it (the lease's, ops'); this is the mode when nobody gives one.
 */
export const DEFAULT_RUNTIME_MODE: RuntimeMode = "full-access";

export const INTERACTION_MODES = ["default", "plan"] as const;
export const interactionMode = z.enum(INTERACTION_MODES);
export const COMPLETION_WAKES = ["always", "settled_only"] as const;
export const PULL_REQUEST_SOURCES = ["manual", "created", "agent", "stack", "stack-dismissed"] as const;

/** Provider instance id slug (`ProviderInstanceId`). */
const instanceId = z
  .string()
  .max(64)
  .regex(/^[a-zA-Z][a-zA-Z0-9_-]*$/);

/** `ModelSelection` in its current shape only: legacy `{provider, model}` is refused. */
export const modelSelection = z.strictObject({
  instanceId,
  model: idString,
  options: z
    .array(z.strictObject({ id: idString, value: z.union([z.string(), z.boolean()]) }))
    .max(MAX_MODEL_OPTIONS)
    .optional(),
});
export type ModelSelection = z.infer<typeof modelSelection>;

/** `ChatAttachment`: a reference to something already uploaded to T3. */
export const attachment = z.strictObject({
  type: z.enum(["image", "file", "pdf", "video"]),
  id: z
    .string()
    .max(128)
    .regex(/^[a-z0-9_-]+$/),
  name: z
    .string()
    .min(1)
    .max(255)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
    .regex(/^[^/\\\u0000-\u001f\u007f]+$/),
  mimeType: z.string().trim().min(1).max(255),
  sizeBytes: z.number().int().nonnegative(),
});
export const attachments = z.array(attachment).max(MAX_ATTACHMENTS);
export type Attachment = z.infer<typeof attachment>;

/** Where a fork or merge starts. */
export const sourcePoint = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("latest_stable") }),
  z.strictObject({ type: z.literal("run"), runId: idString }),
  z.strictObject({ type: z.literal("checkpoint"), checkpointId: idString }),
]);

/** Where a launched thread works. */
export const workspaceStrategy = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("root"), branch: idString.optional() }),
  z.strictObject({
    type: z.literal("existing_worktree"),
    worktreePath: idString,
    branch: idString.optional(),
  }),
  z.strictObject({
    type: z.literal("worktree"),
    baseRef: idString,
    branch: idString.optional(),
    startFromOrigin: z.boolean().optional(),
  }),
]);

/** A JSON answer value for a user-input question (`ProviderUserInputAnswers` is record string → unknown). */
export const answers = z
  .record(idString, z.json())
  .refine((value) => Object.keys(value).length > 0, "answers must hold at least one answer")
  .refine((value) => Object.keys(value).length <= MAX_ANSWERS, `at most ${MAX_ANSWERS} answers`);

/** Drops keys whose value is `undefined`, so a payload carries only the fields that were given. */
export function compact<T extends Record<string, unknown>>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item !== undefined) out[key] = item;
  }
  return out as T;
}

/** Normalises an accepted ISO date-time to the UTC `Z` form T3 itself writes. */
export function toUtcIso(value: string): string {
  return new Date(value).toISOString();
}
