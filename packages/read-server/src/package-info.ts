import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The package's own metadata, read once from package.json. Both `src/` (tests) and `dist/` (the
 * built CLI) sit one level below the package root, so the same relative URL works for both and
 * the version lives in exactly one place.
 */
export interface PackageInfo {
  name: string;
  version: string;
}

let cached: PackageInfo | undefined;

export function packageInfo(): PackageInfo {
  if (cached === undefined) {
    const raw: unknown = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    const record = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
    if (typeof record.name !== "string" || typeof record.version !== "string") {
      throw new Error("read-server package.json lacks a name or a version");
    }
    cached = { name: record.name, version: record.version };
  }
  return cached;
}

/** Absolute path of the `t3-connector` bin script, for MCP client configs (same depth rule). */
export function binPath(): string {
  return fileURLToPath(new URL("../bin/t3-connector.js", import.meta.url));
}
