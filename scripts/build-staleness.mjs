// Whether `pnpm build` has anything to do: the build ends with the two CLI bundles, so a tree whose
// bundles are newer than every input (sources, package manifests, TypeScript configs, the lockfile,
// the build scripts) is up to date. `pnpm install` builds, so `pnpm demo` right after it need not.
import { readdir, stat } from "node:fs/promises";
import path from "node:path";

/** What the build writes last, relative to the checkout. */
export const BUILD_OUTPUTS = [
  "packages/read-server/dist/t3-connector.bundle.js",
  "packages/ops/dist/t3-connector-ops.bundle.js",
];

/** Why the checkout at `root` needs a build, or undefined when everything it would write is newer. */
export async function staleReason(root) {
  let oldestOutput = Number.POSITIVE_INFINITY;
  for (const output of BUILD_OUTPUTS) {
    const found = await mtimeOf(path.join(root, output));
    if (found === undefined) return `${output} is missing`;
    oldestOutput = Math.min(oldestOutput, found);
  }
  const newer = await newestInput(root, oldestOutput);
  return newer === undefined ? undefined : `${newer} changed since the last build`;
}

/** The first input file newer than `than` (ms), or undefined. */
async function newestInput(root, than) {
  const single = ["package.json", "pnpm-lock.yaml", "tsconfig.base.json", "scripts/install-bundle.mjs"];
  for (const file of single) if (((await mtimeOf(path.join(root, file))) ?? 0) > than) return file;
  for (const pkg of await readdir(path.join(root, "packages"))) {
    const base = path.join("packages", pkg);
    for (const file of ["package.json", "tsconfig.json"])
      if (((await mtimeOf(path.join(root, base, file))) ?? 0) > than) return path.join(base, file);
    for (const folder of ["src", "scripts"]) {
      const found = await newerIn(root, path.join(base, folder), than);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

async function newerIn(root, relative, than) {
  let entries;
  try {
    entries = await readdir(path.join(root, relative), { withFileTypes: true });
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    const child = path.join(relative, entry.name);
    if (entry.isDirectory()) {
      const found = await newerIn(root, child, than);
      if (found !== undefined) return found;
    } else if (((await mtimeOf(path.join(root, child))) ?? 0) > than) return child;
  }
  return undefined;
}

async function mtimeOf(file) {
  try {
    return (await stat(file)).mtimeMs;
  } catch {
    return undefined;
  }
}
