/**
 * `diagnose --deep <environment>` (ADR 0069): checks, read-only, every assumption the connector
 * makes about one server (its routes, the stream item kinds, the shape of a refused command, the
 * scopes granted, the optional RPCs) and answers a report with nothing secret in it. The same
 * command in the three CLIs, over each one's file and token. It sends no write: the one command
 * it sends cannot decode (refusal-probes.ts).
 */

import { noEnvironmentsError } from "../../../config/index.js";
import { EnvironmentRegistry } from "../../../environments/index.js";
import { isConnectorError } from "../../../errors.js";
import type { EnvironmentsCommandContext, EnvironmentsReport } from "../command-context.js";
import { findConfigured, loadEnvironments } from "../command-context.js";
import type { Probe, ProbeTarget } from "./probe-target.js";
import { assumption, plainWord } from "./probe-target.js";
import { probeRefusal } from "./refusal-probes.js";
import { type Assumption, type DeepReport, deepReport, deepReportText } from "./report.js";
import { probeRoutes } from "./route-probes.js";
import { probeRpcs, probeScopes } from "./scope-rpc-probes.js";
import { probeStreams } from "./stream-probes.js";

export const DEEP_PROBE_TIMEOUT_MS = 15_000;

export interface DeepDiagnoseRequest {
  /** The one environment probed (alias, extra name or environmentId). */
  environment: string;
  /** Answer the report as JSON (`--json`) rather than as text. */
  json?: boolean | undefined;
  /** The report's time; default now. */
  now?: () => Date;
  timeoutMs?: number;
}

/** What `diagnose --deep` answers: the report, and its text when the CLI prints text. */
export interface DeepDiagnoseReport extends EnvironmentsReport {
  text?: string;
}

/** Run one after the other: the machine may be small and the server a user's own. */
const PROBES: readonly Probe[] = [probeScopes, probeRoutes, probeStreams, probeRefusal, probeRpcs];

const protocol = assumption("protocol");
const PROTOCOL_EXPECTED =
  "the descriptor declares orchestration protocol 2, or (early V2 builds) nothing, with a shell of schemaVersion 2";

export async function deepDiagnoseCommand(
  context: EnvironmentsCommandContext,
  request: DeepDiagnoseRequest,
): Promise<DeepDiagnoseReport> {
  const loaded = await loadEnvironments(context);
  if (loaded.environments.length === 0) throw noEnvironmentsError(context.kind.owner, loaded.path);
  const configured = findConfigured(loaded, request.environment);
  const timeoutMs = request.timeoutMs ?? DEEP_PROBE_TIMEOUT_MS;
  const registry = new EnvironmentRegistry({
    environments: [configured],
    requiredScopes: context.kind.scopes,
    connectTimeoutMs: timeoutMs,
    ...(context.io.fetch === undefined ? {} : { fetch: context.io.fetch }),
  });
  const generatedAt = (request.now?.() ?? new Date()).toISOString();
  try {
    const handle = registry.environments[0];
    if (handle === undefined) throw new Error("no environment");
    const report = await probeOne(handle, context.kind.scopes, timeoutMs, generatedAt);
    const exitCode = report.summary.differs === 0 ? 0 : 1;
    const value = report as unknown as Record<string, unknown>;
    return request.json === true ? { value, exitCode } : { value, exitCode, text: deepReportText(report) };
  } finally {
    await registry.close();
  }
}

async function probeOne(
  handle: EnvironmentRegistry["environments"][number],
  requiredScopes: readonly string[],
  timeoutMs: number,
  generatedAt: string,
): Promise<DeepReport> {
  let connected: Awaited<ReturnType<typeof handle.connect>>;
  try {
    connected = await handle.connect();
  } catch (error) {
    return refusedReport(error, generatedAt);
  }
  const descriptor = await connected.http.getDescriptor({ signal: AbortSignal.timeout(timeoutMs) });
  const declared = descriptor.orchestrationProtocolVersion ?? null;
  const shell = await connected.http.getShell({ signal: AbortSignal.timeout(timeoutMs) });
  const thread = shell.threads.find((row) => !row.deletedAt);
  const target: ProbeTarget = {
    connected,
    protocol2Declared: declared === 2,
    threadId: thread?.id,
    requiredScopes,
    timeoutMs,
  };
  const found: Assumption[] = [
    protocol(
      "protocol.version",
      PROTOCOL_EXPECTED,
      "held",
      declared === 2
        ? "the descriptor declares protocol 2"
        : "no protocol field; the shell says schemaVersion 2",
    ),
  ];
  for (const probe of PROBES) found.push(...(await probe(target)));
  return deepReport(
    {
      generatedAt,
      serverVersion: connected.version === null ? null : plainWord(connected.version),
      orchestrationProtocolVersion: declared,
    },
    found,
  );
}

/** A server the connector refuses outright: the report says why, and that nothing else was probed. */
function refusedReport(error: unknown, generatedAt: string): DeepReport {
  const code = isConnectorError(error) ? error.code : "failed";
  const version = isConnectorError(error) ? error.details?.serverVersion : undefined;
  const declared = isConnectorError(error) ? error.details?.orchestrationProtocolVersion : undefined;
  const found: Assumption[] = [];
  if (code === "protocol_unsupported") {
    found.push(
      protocol(
        "protocol.version",
        PROTOCOL_EXPECTED,
        "differs",
        "the server does not speak protocol 2: upgrade T3 to 0.0.46 or later",
      ),
    );
  } else if (code === "scope_mismatch") {
    const extra = isConnectorError(error) ? ((error.details?.extra as string[] | undefined) ?? []) : [];
    const missing = isConnectorError(error) ? ((error.details?.missing as string[] | undefined) ?? []) : [];
    found.push(
      assumption("scopes")(
        "scopes.granted",
        "the token grants exactly the file's scopes",
        "differs",
        [
          missing.length > 0 ? `missing ${missing.join(" ")}` : "",
          extra.length > 0 ? `extra ${extra.join(" ")}` : "",
        ]
          .filter(Boolean)
          .join("; "),
      ),
    );
  }
  found.push(
    protocol(
      "connection",
      "the connector connects and verifies the server",
      "differs",
      `refused (${code}); nothing else was probed`,
    ),
  );
  return deepReport(
    {
      generatedAt,
      serverVersion: typeof version === "string" ? plainWord(version) : null,
      orchestrationProtocolVersion: typeof declared === "number" ? declared : null,
    },
    found,
  );
}
