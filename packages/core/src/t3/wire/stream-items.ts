import { z } from "zod";
import { ConnectorError } from "../../errors.js";
import { nonNegativeInt, openEnum } from "./lenient.js";
import { ProjectShellSchema, ShellSnapshotSchema, ThreadShellSchema } from "./shell.js";
import { DomainEventSchema, ThreadProjectionSchema } from "./thread.js";

/**
 * Stream items of `subscribeShell`, `subscribeArchivedShell` and `subscribeThread`, tagged by
 * `kind`. A kind this build does not know becomes an `UnknownStreamItem` instead of failing the
 * stream, so a newer server's additions never break a subscription. A known kind that does not
 * decode is a real protocol problem and fails with `invalid_response`.
 */
export interface UnknownStreamItem {
  kind: "unknown";
  /** The `kind` the server sent. */
  originalKind: string;
  /** Present when the item carried a numeric `sequence` (cursors still advance past it). */
  sequence?: number;
  raw: unknown;
}

const SynchronizedSchema = z.looseObject({ kind: z.literal("synchronized") });

const ShellSnapshotItemSchema = z.looseObject({
  kind: z.literal("snapshot"),
  snapshot: ShellSnapshotSchema,
  resolvedRepositoryIdentityRoots: z.array(z.string()).optional(),
});
const ProjectUpdatedSchema = z.looseObject({
  kind: z.literal("project.updated"),
  sequence: nonNegativeInt,
  project: ProjectShellSchema,
});
const ProjectRemovedSchema = z.looseObject({
  kind: z.literal("project.removed"),
  sequence: nonNegativeInt,
  projectId: z.string(),
});
/** `location` is absent on archived-shell items (surprise 16). */
const ThreadUpdatedSchema = z.looseObject({
  kind: z.literal("thread.updated"),
  sequence: nonNegativeInt,
  location: openEnum(["active", "archive"]).optional(),
  thread: ThreadShellSchema,
});
const ThreadRemovedSchema = z.looseObject({
  kind: z.literal("thread.removed"),
  sequence: nonNegativeInt,
  location: openEnum(["active", "archive"]).optional(),
  threadId: z.string(),
});

const ThreadSnapshotItemSchema = z.looseObject({
  kind: z.literal("snapshot"),
  snapshotSequence: nonNegativeInt,
  projection: ThreadProjectionSchema,
});
const ThreadEventItemSchema = z.looseObject({
  kind: z.literal("event"),
  sequence: nonNegativeInt,
  event: DomainEventSchema,
});
/** Newer servers: an event type the server build itself cannot decode; skip it, keep the cursor. */
const UnknownEventItemSchema = z.looseObject({
  kind: z.literal("unknown-event"),
  sequence: nonNegativeInt,
  eventType: z.string().optional(),
});

export type ShellSnapshotItem = z.output<typeof ShellSnapshotItemSchema>;
export type ShellStreamItem =
  | ShellSnapshotItem
  | z.output<typeof SynchronizedSchema>
  | z.output<typeof ProjectUpdatedSchema>
  | z.output<typeof ProjectRemovedSchema>
  | z.output<typeof ThreadUpdatedSchema>
  | z.output<typeof ThreadRemovedSchema>
  | UnknownStreamItem;

export type ThreadSnapshotItem = z.output<typeof ThreadSnapshotItemSchema>;
export type ThreadEventItem = z.output<typeof ThreadEventItemSchema>;
export type ThreadStreamItem =
  | ThreadSnapshotItem
  | ThreadEventItem
  | z.output<typeof SynchronizedSchema>
  | z.output<typeof UnknownEventItemSchema>
  | UnknownStreamItem;

/** Archived-shell items have the same shapes as the main shell's, minus `location`. */
export type ArchivedShellStreamItem = ShellStreamItem;

const SHELL_KINDS: Record<string, z.ZodType> = {
  synchronized: SynchronizedSchema,
  snapshot: ShellSnapshotItemSchema,
  "project.updated": ProjectUpdatedSchema,
  "project.removed": ProjectRemovedSchema,
  "thread.updated": ThreadUpdatedSchema,
  "thread.removed": ThreadRemovedSchema,
};

const THREAD_KINDS: Record<string, z.ZodType> = {
  synchronized: SynchronizedSchema,
  snapshot: ThreadSnapshotItemSchema,
  event: ThreadEventItemSchema,
  "unknown-event": UnknownEventItemSchema,
};

export function parseShellStreamItem(value: unknown): ShellStreamItem {
  return parseByKind(value, SHELL_KINDS, "shell") as ShellStreamItem;
}

export function parseThreadStreamItem(value: unknown): ThreadStreamItem {
  return parseByKind(value, THREAD_KINDS, "thread") as ThreadStreamItem;
}

/** The cursor an item moves a subscription to, if any. */
export function itemSequence(item: ShellStreamItem | ThreadStreamItem): number | undefined {
  if (item.kind === "snapshot") {
    const shell = (item as Partial<ShellSnapshotItem>).snapshot;
    return shell ? shell.snapshotSequence : (item as ThreadSnapshotItem).snapshotSequence;
  }
  if ("sequence" in item && typeof item.sequence === "number") return item.sequence;
  return undefined;
}

function parseByKind(value: unknown, schemas: Record<string, z.ZodType>, stream: string): unknown {
  const kind = typeof value === "object" && value !== null ? (value as { kind?: unknown }).kind : undefined;
  if (typeof kind !== "string") {
    throw new ConnectorError("invalid_response", `a ${stream} stream item has no "kind"`);
  }
  const schema = Object.hasOwn(schemas, kind) ? schemas[kind] : undefined;
  if (!schema) {
    const sequence = (value as { sequence?: unknown }).sequence;
    const unknownItem: UnknownStreamItem = { kind: "unknown", originalKind: kind, raw: value };
    if (typeof sequence === "number") unknownItem.sequence = sequence;
    return unknownItem;
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new ConnectorError(
      "invalid_response",
      `a ${stream} stream item of kind "${kind}" does not decode: ${summarizeIssues(parsed.error)}`,
    );
  }
  return parsed.data;
}

/** A short, secret-free description of what failed to decode (paths and messages only). */
export function summarizeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(root)"}: ${issue.message}`)
    .join("; ");
}
