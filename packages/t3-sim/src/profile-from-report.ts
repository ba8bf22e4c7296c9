/**
 * A `diagnose --deep` report (ADR 0069) as a simulated environment's profile: the server version
 * it names, transitional when it declared no protocol, and each open point of the 0.0.46 age the
 * report saw differ. `t3-sim serve --profile-report FILE` plays it, so a user's bug report can be
 * replayed against the connector. Only what a read-only probe can see is carried over.
 */
import type { Unknowns0046 } from "./model/age-0046.js";
import type { SimulatorEnvironmentOptions } from "./simulator-core.js";

export type ReportProfile = Pick<SimulatorEnvironmentOptions, "serverVersion" | "transitional" | "unknowns">;

interface ReportAssumption {
  id?: unknown;
  status?: unknown;
  seen?: unknown;
}

/** The profile a report describes; throws on a document that is not such a report. */
export function profileFromReport(report: unknown): ReportProfile {
  const document = report as {
    kind?: unknown;
    serverVersion?: unknown;
    orchestrationProtocolVersion?: unknown;
    assumptions?: unknown;
  };
  if (document?.kind !== "t3-connector.deep-diagnosis" || !Array.isArray(document.assumptions)) {
    throw new Error(
      "not a t3-connector diagnose --deep report (its kind is not t3-connector.deep-diagnosis)",
    );
  }
  const found = new Map<string, ReportAssumption>();
  for (const entry of document.assumptions as ReportAssumption[]) {
    if (typeof entry?.id === "string") found.set(entry.id, entry);
  }
  const differs = (id: string) => found.get(id)?.status === "differs";
  const seen = (id: string) => String(found.get(id)?.seen ?? "");
  const unknowns: Partial<Unknowns0046> = {
    ...(differs("route.projects") ? { projectsRoute: "absent" as const } : {}),
    ...(differs("rpc.getTurnItem") ? { getTurnItem: "absent" as const } : {}),
    ...(/\bbounded\b/.test(seen("stream.thread")) ? { threadSnapshotDefault: "bounded" as const } : {}),
    ...(differs("scopes.granted") && /\bgranted: .*\s/.test(seen("scopes.granted"))
      ? { scopeGrant: "superset" as const }
      : {}),
  };
  const transitional = document.orchestrationProtocolVersion === null;
  return {
    ...(typeof document.serverVersion === "string" ? { serverVersion: document.serverVersion } : {}),
    ...(transitional ? { transitional: true } : {}),
    ...(Object.keys(unknowns).length > 0 ? { unknowns } : {}),
  };
}
