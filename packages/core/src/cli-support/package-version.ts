import { readFileSync } from "node:fs";

const cache = new Map<string, string>();

/**
 * The `version` of the package.json at `packageJsonUrl`, read once. Each CLI passes the URL
 * relative to its own module (`src/` and `dist/` sit at the same depth), so the version lives only
 * in package.json, and an installed tarball reports what it was packed as.
 */
export function readPackageVersion(packageJsonUrl: URL): string {
  const key = packageJsonUrl.href;
  const known = cache.get(key);
  if (known !== undefined) return known;
  const raw = JSON.parse(readFileSync(packageJsonUrl, "utf8")) as { version?: unknown };
  if (typeof raw.version !== "string") throw new Error(`${packageJsonUrl.pathname} has no version`);
  cache.set(key, raw.version);
  return raw.version;
}
