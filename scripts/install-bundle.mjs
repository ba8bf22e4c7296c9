// Moves a bundle written to a staging folder into its package's dist/ so that a process starting
// the bin while a build runs (parallel test files do this) loads either the old or the new
// bundle, never a half-written one: chunks first, the entry last, each by rename, so every chunk
// the entry it loads names is already there. Chunk names carry a content hash, so an older entry
// still finds its own chunks; chunks no entry names any more are removed afterwards.
// Used by packages/read-server/scripts/bundle-cli.mjs and packages/ops/scripts/bundle-cli.mjs.
import { readdir, rename, rm } from "node:fs/promises";
import path from "node:path";

/** Moves `name` (and its map) and every `chunkPrefix*` file from `staging` into `dist`. */
export async function installBundle({ staging, dist, name, chunkPrefix }) {
  const written = await readdir(staging);
  const chunks = written.filter((file) => file.startsWith(chunkPrefix));
  for (const file of chunks) await rename(path.join(staging, file), path.join(dist, file));
  if (written.includes(`${name}.map`))
    await rename(path.join(staging, `${name}.map`), path.join(dist, `${name}.map`));
  await rename(path.join(staging, name), path.join(dist, name));
  for (const file of await readdir(dist)) {
    if (file.startsWith(chunkPrefix) && !chunks.includes(file))
      await rm(path.join(dist, file), { force: true });
  }
}
