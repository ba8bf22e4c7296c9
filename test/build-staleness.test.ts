/**
 * `pnpm demo` builds only what is stale (scripts/build-if-stale.mjs): a tree whose two CLI bundles
 * are newer than every input needs no build; a missing bundle, or a source, manifest or lockfile
 * touched after them, does. Checked on a small tree of real files with set modification times.
 */
import { mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BUILD_OUTPUTS, staleReason } from "../scripts/build-staleness.mjs";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const BUILT_AT = new Date("2026-12-07T10:00:00Z");
const BEFORE = new Date("2026-12-07T09:00:00Z");
const AFTER = new Date("2026-12-07T11:00:00Z");

async function tree(): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), "t3c-staleness-"));
  dirs.push(root);
  const files = [
    "package.json",
    "pnpm-lock.yaml",
    "packages/core/package.json",
    "packages/core/src/index.ts",
    "packages/read-server/src/tools/t3_since.ts",
    "packages/read-server/scripts/bundle-cli.mjs",
  ];
  for (const file of files) await put(root, file, BEFORE);
  for (const output of BUILD_OUTPUTS) await put(root, output, BUILT_AT);
  return root;
}

async function put(root: string, file: string, at: Date): Promise<void> {
  await mkdir(path.dirname(path.join(root, file)), { recursive: true });
  await writeFile(path.join(root, file), "x");
  await utimes(path.join(root, file), at, at);
}

describe("whether pnpm demo builds", () => {
  it("builds nothing when the bundles are newer than every input", async () => {
    expect(await staleReason(await tree())).toBeUndefined();
  });

  it("builds when a source, a package manifest, a build script or the lockfile changed after them", async () => {
    for (const file of [
      "packages/read-server/src/tools/t3_since.ts",
      "packages/core/package.json",
      "packages/read-server/scripts/bundle-cli.mjs",
      "pnpm-lock.yaml",
    ]) {
      const root = await tree();
      await utimes(path.join(root, file), AFTER, AFTER);
      expect(await staleReason(root)).toBe(`${file} changed since the last build`);
    }
  });

  it("builds when a bundle is missing", async () => {
    const root = await tree();
    await rm(path.join(root, BUILD_OUTPUTS[1] as string));
    expect(await staleReason(root)).toBe(`${BUILD_OUTPUTS[1]} is missing`);
  });
});
