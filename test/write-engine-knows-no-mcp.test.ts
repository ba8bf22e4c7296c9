import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The write engine serves the gate and the operator CLI as much as the bridge, so how MCP presents
// a write (a `t3_escrever_*` name, the four tool hints, notes for a model) lives in the bridge's
// table, read by action id. Biome stops an MCP import; this stops the same knowledge being typed in.

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const engineSrc = path.join(root, "packages", "write-engine", "src");

// Built from pieces so that this file does not contain what it forbids.
const FORBIDDEN = [
  ["t3", "escrever", ""].join("_"),
  ["readOnly", "Hint"].join(""),
  ["destructive", "Hint"].join(""),
  ["idempotent", "Hint"].join(""),
  ["openWorld", "Hint"].join(""),
  ["tool", "Notes"].join(""),
  ["@model", "context", "protocol"].join(""),
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

describe("the write engine", () => {
  it("spells no MCP tool name, tool hint or note for a model in its sources", () => {
    const files = sourceFiles(engineSrc);
    expect(files.length).toBeGreaterThan(10);
    const hits: string[] = [];
    for (const file of files) {
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, index) => {
          const found = FORBIDDEN.find((needle) => line.includes(needle));
          if (found !== undefined) hits.push(`${path.relative(root, file)}:${index + 1}: ${found}`);
        });
    }
    expect(
      hits,
      `move it to packages/write-bridge/src/tools/write-tool-table.ts:\n${hits.join("\n")}`,
    ).toEqual([]);
  });
});
