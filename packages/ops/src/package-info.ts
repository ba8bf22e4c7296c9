import { readFileSync } from "node:fs";

/** This package's version, read once from package.json (`src/` and `dist/` both sit one level below it). */
let cached: string | undefined;

export function opsVersion(): string {
  if (cached === undefined) {
    const raw = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      version?: unknown;
    };
    if (typeof raw.version !== "string") throw new Error("ops package.json lacks a version");
    cached = raw.version;
  }
  return cached;
}
