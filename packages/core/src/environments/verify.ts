import { ConnectorError } from "../errors.js";
import type { T3HttpClient } from "../t3/http-client.js";
import { protocolUnsupported, shellProtocolMarks } from "./older-protocol.js";

export const READ_SCOPES: readonly string[] = Object.freeze(["orchestration:read"]);
export const OPERATE_SCOPES: readonly string[] = Object.freeze([
  "orchestration:read",
  "orchestration:operate",
]);

/** How the server proved it speaks orchestration protocol 2. */
export type ProtocolEvidence = "descriptor" | "shell-schema";

export interface VerifiedIdentity {
  /** The server label (`label` of the descriptor), null when empty. */
  name: string | null;
  /** `serverVersion` of the descriptor. */
  version: string | null;
  protocol: ProtocolEvidence;
  /** What the token really holds (`permissions` when present, else `scopes`). */
  scopes: string[];
  tokenExpiresAt: string | undefined;
}

export interface VerifyTarget {
  alias: string;
  environmentId: string;
  requiredScopes: readonly string[];
}

function nonEmpty(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

function grantedScopes(session: {
  permissions?: string[] | undefined;
  scopes?: string[] | undefined;
}): string[] {
  return [...(session.permissions ?? session.scopes ?? [])];
}

/** Compares scope sets; both directions matter (a broader token is refused, not used). */
export function scopeDifference(
  granted: readonly string[],
  required: readonly string[],
): { missing: string[]; extra: string[] } {
  const grantedSet = new Set(granted);
  const requiredSet = new Set(required);
  return {
    missing: [...requiredSet].filter((scope) => !grantedSet.has(scope)).sort(),
    extra: [...grantedSet].filter((scope) => !requiredSet.has(scope)).sort(),
  };
}

function scopeMismatch(target: VerifyTarget, missing: string[], extra: string[]): ConnectorError {
  const parts: string[] = [];
  if (missing.length > 0) parts.push(`lacks ${missing.join(", ")}`);
  if (extra.length > 0) parts.push(`also grants ${extra.join(", ")}, which this process must not hold`);
  return new ConnectorError(
    "scope_mismatch",
    `the token of environment "${target.alias}" ${parts.join(" and ")}; ` +
      `it must grant exactly ${[...target.requiredScopes].sort().join(", ")}. Pair a token with exactly those scopes.`,
    { details: { missing, extra, required: [...target.requiredScopes] } },
  );
}

/**
 * Checks that the server is the configured environment, speaks protocol 2 and that the token holds
 * exactly the required scopes. Any doubt fails closed: nothing is read from a server that did not
 * pass every check.
 */
export async function verifyEnvironment(
  http: T3HttpClient,
  target: VerifyTarget,
  signal: AbortSignal,
): Promise<VerifiedIdentity> {
  const descriptor = await http.getDescriptor({ signal });
  if (descriptor.environmentId !== target.environmentId) {
    throw new ConnectorError(
      "environment_mismatch",
      `environment "${target.alias}" answered as environmentId ${descriptor.environmentId}, ` +
        `but the config expects ${target.environmentId}; refusing to use it`,
      { details: { expected: target.environmentId, actual: descriptor.environmentId } },
    );
  }
  const version = nonEmpty(descriptor.serverVersion);
  const declared = descriptor.orchestrationProtocolVersion;
  if (declared !== undefined && declared !== 2) {
    // 0.0.45 states protocol 1 outright; the field being present does not mean protocol 2.
    throw protocolUnsupported(target.alias, version, `it speaks orchestration protocol ${declared}`, {
      orchestrationProtocolVersion: declared,
    });
  }
  const session = await http.getAuthSession({ signal });
  if (!session.authenticated) {
    throw new ConnectorError(
      "unauthorized",
      `environment "${target.alias}" did not accept the token (expired, revoked or never issued there); pair it again`,
    );
  }
  const scopes = grantedScopes(session);
  const { missing, extra } = scopeDifference(scopes, target.requiredScopes);
  if (missing.length > 0 || extra.length > 0) throw scopeMismatch(target, missing, extra);

  let protocol: ProtocolEvidence = "descriptor";
  if (declared === undefined) {
    // Transitional V2 servers publish no protocol field; their shell schema still says 2. Older
    // (V1) servers publish none either: their shell is read loosely, so its V1 rows are named as
    // an older protocol instead of failing the V2 row schema.
    const shell = await http.getShellProtocolMarks({ signal });
    const marks = shellProtocolMarks(shell);
    if (marks.schemaVersion !== 2 || marks.v1Rows > 0) {
      const why =
        marks.schemaVersion !== 2
          ? `its shell has schemaVersion ${String(marks.schemaVersion ?? "absent")}`
          : `its shell has ${marks.v1Rows} protocol-1 thread row(s)`;
      throw protocolUnsupported(
        target.alias,
        version,
        `it does not declare orchestration protocol 2 and ${why}`,
        {
          schemaVersion: marks.schemaVersion ?? null,
          v1Rows: marks.v1Rows,
        },
      );
    }
    protocol = "shell-schema";
  }
  return { name: nonEmpty(descriptor.label), version, protocol, scopes, tokenExpiresAt: session.expiresAt };
}
