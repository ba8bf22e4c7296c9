/** The stream item kinds the connector receives, from one shell and one thread subscription (ADR 0069). */
import { isConnectorError } from "../../../errors.js";
import { assumption, failureSeen, type ProbeTarget, plainWord } from "./probe-target.js";
import type { Assumption } from "./report.js";

const stream = assumption("stream");

const SHELL_KINDS = new Set([
  "snapshot",
  "synchronized",
  "project.updated",
  "project.removed",
  "thread.updated",
  "thread.removed",
]);
const THREAD_KINDS = new Set(["snapshot", "synchronized", "event"]);

interface Seen {
  kinds: string[];
  /** Per kind, the first item as the client decoded it. */
  first: Map<string, Record<string, unknown>>;
}

/** Subscribes until the completion marker (or the deadline), then closes; never sends anything else. */
async function collect(
  target: ProbeTarget,
  subscribe: (
    client: Awaited<ReturnType<ProbeTarget["connected"]["rpc"]>>,
    onItem: (item: { kind: string; originalKind?: string }) => void,
  ) => { close(): void; done: Promise<void> },
): Promise<Seen> {
  const client = await target.connected.rpc();
  const seen: Seen = { kinds: [], first: new Map() };
  let synchronized!: () => void;
  const marker = new Promise<void>((resolve) => {
    synchronized = resolve;
  });
  const subscription = subscribe(client, (item) => {
    const kind = item.kind === "unknown" ? `unknown:${plainWord(item.originalKind)}` : item.kind;
    if (!seen.kinds.includes(kind)) seen.kinds.push(kind);
    if (!seen.first.has(kind)) seen.first.set(kind, item as unknown as Record<string, unknown>);
    if (item.kind === "synchronized") synchronized();
  });
  const deadline = AbortSignal.timeout(target.timeoutMs);
  const expired = new Promise<void>((resolve) =>
    deadline.addEventListener("abort", () => resolve(), { once: true }),
  );
  try {
    await Promise.race([marker, expired, subscription.done]);
  } finally {
    subscription.close();
  }
  return seen;
}

function unknownKinds(seen: Seen, known: ReadonlySet<string>): string[] {
  return seen.kinds.filter((kind) => !known.has(kind));
}

export async function probeStreams(target: ProbeTarget): Promise<Assumption[]> {
  const found: Assumption[] = [];
  const shellExpected =
    "subscribeShell answers a snapshot, then the completion marker; every item kind is one the connector reads";
  try {
    const seen = await collect(target, (client, onItem) =>
      client.subscribeShell({ requestCompletionMarker: true, onItem }),
    );
    const strange = unknownKinds(seen, SHELL_KINDS);
    const whole = seen.kinds.includes("snapshot") && seen.kinds.includes("synchronized");
    found.push(
      stream(
        "stream.shell",
        shellExpected,
        whole && strange.length === 0 ? "held" : "differs",
        `kinds: ${seen.kinds.join(", ") || "none before the deadline"}`,
      ),
    );
  } catch (error) {
    found.push(stream("stream.shell", shellExpected, "differs", failureSeen(error)));
  }

  const threadExpected =
    "subscribeThread answers a snapshot (bounded or full: either is read), then the completion marker";
  const threadId = target.threadId;
  if (threadId === undefined) {
    found.push(stream("stream.thread", threadExpected, "unknown", "the shell has no thread to follow"));
    return found;
  }
  try {
    const seen = await collect(target, (client, onItem) =>
      client.subscribeThread({ threadId, requestCompletionMarker: true, onItem }),
    );
    const strange = unknownKinds(seen, THREAD_KINDS);
    const snapshot = seen.first.get("snapshot");
    const bounded =
      snapshot !== undefined && ("historyCursor" in snapshot || "payloadBudgetExceeded" in snapshot);
    const shape = snapshot === undefined ? "" : ` (the snapshot ${bounded ? "bounded" : "full"})`;
    const whole = snapshot !== undefined && seen.kinds.includes("synchronized");
    found.push(
      stream(
        "stream.thread",
        threadExpected,
        whole && strange.length === 0 ? "held" : "differs",
        `kinds: ${seen.kinds.join(", ") || "none before the deadline"}${shape}`,
      ),
    );
  } catch (error) {
    const seen = isConnectorError(error) ? failureSeen(error) : "failed unexpectedly";
    found.push(stream("stream.thread", threadExpected, "differs", seen));
  }
  return found;
}
