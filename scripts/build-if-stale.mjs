#!/usr/bin/env node
// `pnpm demo`'s first step: runs `pnpm build` only when a source changed since the last build (or
// nothing was built yet), and says which way it went.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { staleReason } from "./build-staleness.mjs";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const reason = await staleReason(root);
if (reason === undefined) {
  process.stderr.write("build: up to date, nothing to build\n");
} else {
  process.stderr.write(`build: ${reason}: running pnpm build\n`);
  const built = spawnSync("pnpm", ["build"], { cwd: root, stdio: "inherit" });
  process.exit(built.status ?? 1);
}
