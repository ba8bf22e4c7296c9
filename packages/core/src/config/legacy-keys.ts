import { ConnectorError } from "../errors.js";

export type ConfigKind = "read" | "write";

/** Where in the document a legacy key may appear. */
type Level = "top" | "environment" | "ssh";

interface LegacyKey {
  level: Level;
  key: string;
  replacement: string;
  kinds: readonly ConfigKind[];
}

/**
 * Old (Portuguese) names from earlier connector versions. A silently ignored old key once
 * re-routed calls to the wrong environment, so each one stops start-up and names its successor.
 */
const LEGACY_KEYS: readonly LegacyKey[] = [
  { level: "top", key: "padrao", replacement: "default", kinds: ["read", "write"] },
  { level: "top", key: "ambientes", replacement: "environments", kinds: ["read", "write"] },
  { level: "top", key: "porta", replacement: "port", kinds: ["write"] },
  { level: "top", key: "estado", replacement: "stateDir", kinds: ["write"] },
  { level: "top", key: "canal", replacement: "channel", kinds: ["write"] },
  { level: "environment", key: "projetosPermitidos", replacement: "allowedProjects", kinds: ["read"] },
  { level: "ssh", key: "portaRemota", replacement: "remotePort", kinds: ["read", "write"] },
];

/**
 * Keys that grant projects or actions. A write environment has no allowlist (the passkey holder
 * decides per lease), so any spelling of them is refused rather than silently ignored.
 */
const WRITE_REFUSED_KEYS = new Set([
  "projetos",
  "acoes",
  "projetospermitidos",
  "projects",
  "actions",
  "allowedprojects",
]);

function normalizeKey(key: string): string {
  return key
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z]/g, "");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function keysAt(level: Level, kind: ConfigKind): Map<string, string> {
  return new Map(
    LEGACY_KEYS.filter((entry) => entry.level === level && entry.kinds.includes(kind)).map((entry) => [
      entry.key,
      entry.replacement,
    ]),
  );
}

interface Finding {
  path: string;
  replacement: string;
}

function legacyFindings(raw: Record<string, unknown>, kind: ConfigKind): Finding[] {
  const findings: Finding[] = [];
  const collect = (object: Record<string, unknown>, level: Level, prefix: string) => {
    for (const [key, replacement] of keysAt(level, kind)) {
      if (Object.hasOwn(object, key)) findings.push({ path: `${prefix}${key}`, replacement });
    }
  };
  collect(raw, "top", "");
  const environments = raw.environments;
  if (isRecord(environments)) {
    for (const [alias, environment] of Object.entries(environments)) {
      if (!isRecord(environment)) continue;
      collect(environment, "environment", `environments.${alias}.`);
      if (isRecord(environment.ssh)) collect(environment.ssh, "ssh", `environments.${alias}.ssh.`);
    }
  }
  return findings;
}

/** Throws `config_legacy_key` naming every old key found and the key that replaces it. */
export function refuseLegacyKeys(raw: unknown, kind: ConfigKind, configPath: string): void {
  if (!isRecord(raw)) return;
  const findings = legacyFindings(raw, kind);
  if (findings.length === 0) return;
  const list = findings.map((finding) => `"${finding.path}" is now "${finding.replacement}"`).join("; ");
  throw new ConnectorError(
    "config_legacy_key",
    `${configPath}: legacy key${findings.length > 1 ? "s" : ""} no longer accepted: ${list}. Rename and restart.`,
    { details: { legacyKeys: findings } },
  );
}

/** Throws `config_invalid` when a write environment carries a project or action allowlist. */
export function refuseWriteAllowlists(raw: unknown, configPath: string): void {
  if (!isRecord(raw) || !isRecord(raw.environments)) return;
  const paths: string[] = [];
  for (const [alias, environment] of Object.entries(raw.environments)) {
    if (!isRecord(environment)) continue;
    for (const key of Object.keys(environment)) {
      if (WRITE_REFUSED_KEYS.has(normalizeKey(key))) paths.push(`environments.${alias}.${key}`);
    }
  }
  if (paths.length === 0) return;
  throw new ConnectorError(
    "config_invalid",
    `${configPath}: ${paths.map((path) => `"${path}"`).join(", ")} not allowed in the write config: ` +
      "write environments have no project or action allowlist; the passkey holder chooses them for each lease.",
    { details: { paths } },
  );
}
