/** The scopes granted, and which optional RPCs answer (ADR 0069). */
import { assumption, failureSeen, isUnknownMethod, type ProbeTarget } from "./probe-target.js";
import type { Assumption } from "./report.js";

const scopes = assumption("scopes");
const rpc = assumption("rpc");

export async function probeScopes(target: ProbeTarget): Promise<Assumption[]> {
  const granted = [...target.connected.scopes].sort();
  const required = [...target.requiredScopes].sort();
  const exact =
    granted.length === required.length && granted.every((scope, index) => scope === required[index]);
  return [
    scopes(
      "scopes.granted",
      `the token grants exactly ${required.join(" ")}`,
      exact ? "held" : "differs",
      `granted: ${granted.join(" ") || "nothing"}`,
    ),
  ];
}

interface RpcProbe {
  readonly method: string;
  readonly payload: (threadId: string) => unknown;
  readonly needsThread: boolean;
  /** Absent on builds that do not declare protocol 2 (0.0.31), which the connector knows. */
  readonly newer?: true;
}

/** Reads only; a made-up item id answers `{item: null}` or a typed refusal. */
const RPC_PROBES: readonly RpcProbe[] = [
  { method: "server.getConfig", payload: () => ({}), needsThread: false },
  { method: "orchestration.getArchivedShellSnapshot", payload: () => ({}), needsThread: false },
  {
    method: "orchestration.searchThreads",
    payload: () => ({ query: "t3-connector probe", limit: 1 }),
    needsThread: false,
  },
  { method: "orchestration.getThreadProjection", payload: (threadId) => ({ threadId }), needsThread: true },
  {
    method: "orchestration.getTurnItem",
    payload: (threadId) => ({ threadId, itemId: "t3-connector-diagnose-probe" }),
    needsThread: true,
    newer: true,
  },
];

export async function probeRpcs(target: ProbeTarget): Promise<Assumption[]> {
  const found: Assumption[] = [];
  for (const probe of RPC_PROBES) {
    const id = `rpc.${probe.method.replace(/^orchestration\./, "")}`;
    const expected = `${probe.method} answers`;
    const threadId = target.threadId;
    if (probe.needsThread && threadId === undefined) {
      found.push(rpc(id, expected, "unknown", "the shell has no thread to ask about"));
      continue;
    }
    try {
      // A fresh client each time: a server that does not know a method may end the socket (0.0.28).
      const client = await target.connected.rpc();
      await client.call(probe.method, probe.payload(threadId ?? ""), { timeoutMs: target.timeoutMs });
      found.push(rpc(id, expected, "held", "answers"));
    } catch (error) {
      if (isUnknownMethod(error)) {
        const known = probe.newer === true && !target.protocol2Declared;
        const seen = known
          ? "absent, as on builds that do not declare protocol 2; the connector degrades"
          : "absent (Unknown request tag)";
        found.push(rpc(id, expected, known ? "held" : "differs", seen));
      } else if (isTypedRefusal(error)) {
        found.push(rpc(id, expected, "held", "answers (a typed refusal for the probe's made-up input)"));
      } else {
        found.push(rpc(id, expected, "differs", failureSeen(error)));
      }
    }
  }
  return found;
}

function isTypedRefusal(error: unknown): boolean {
  const tag = (error as { t3?: { tag?: unknown } } | undefined)?.t3?.tag;
  return typeof tag === "string" && tag !== "";
}
