/**
 * The report of `diagnose --deep` (ADR 0069): what the connector assumes about a T3 server, each
 * assumption `held`, `differs` (with what was seen) or `unknown`. It names no address, token,
 * alias, label or id, so a person can paste it into a bug report; `t3-sim --profile-report`
 * plays a server that differs the same way.
 */

export const DEEP_REPORT_KIND = "t3-connector.deep-diagnosis";
export const DEEP_REPORT_VERSION = 1;

export type AssumptionStatus = "held" | "differs" | "unknown";
export type AssumptionGroup = "protocol" | "routes" | "stream" | "refusal" | "scopes" | "rpc";

export interface Assumption {
  /** Stable id, e.g. `route.projects`, `rpc.getTurnItem` (a simulator profile keys on it). */
  readonly id: string;
  readonly group: AssumptionGroup;
  /** What the connector assumes, in a sentence. */
  readonly expected: string;
  readonly status: AssumptionStatus;
  /** What the server answered, in words written here (never a body or an id). */
  readonly seen: string;
}

export interface DeepReport {
  readonly kind: typeof DEEP_REPORT_KIND;
  readonly reportVersion: typeof DEEP_REPORT_VERSION;
  readonly generatedAt: string;
  readonly serverVersion: string | null;
  /** The descriptor's `orchestrationProtocolVersion`, null when absent. */
  readonly orchestrationProtocolVersion: number | null;
  readonly summary: Readonly<Record<AssumptionStatus, number>>;
  readonly assumptions: readonly Assumption[];
}

export function deepReport(
  head: { generatedAt: string; serverVersion: string | null; orchestrationProtocolVersion: number | null },
  assumptions: readonly Assumption[],
): DeepReport {
  const summary = { held: 0, differs: 0, unknown: 0 };
  for (const assumption of assumptions) summary[assumption.status] += 1;
  return { kind: DEEP_REPORT_KIND, reportVersion: DEEP_REPORT_VERSION, ...head, summary, assumptions };
}

/** The report for a terminal: one line per assumption, differences first. */
export function deepReportText(report: DeepReport): string {
  const order: AssumptionStatus[] = ["differs", "unknown", "held"];
  const lines = [
    `T3 ${report.serverVersion ?? "(no version)"}, orchestration protocol ${report.orchestrationProtocolVersion ?? "not declared"}: ` +
      `${report.summary.held} held, ${report.summary.differs} differ, ${report.summary.unknown} unknown`,
  ];
  for (const status of order) {
    for (const assumption of report.assumptions.filter((entry) => entry.status === status)) {
      lines.push(`  ${status.padEnd(7)} ${assumption.id}: ${assumption.seen}`);
      if (status !== "held") lines.push(`          expected: ${assumption.expected}`);
    }
  }
  return `${lines.join("\n")}\n`;
}
