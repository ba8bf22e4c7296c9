import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeTokenFile } from "../../packages/core/src/config/index.js";

/** A private temp directory holding token files the way `pair` writes them. */
export interface TokenFiles {
  dir: string;
  /** Writes `token` to `<dir>/<name>` (mode 600) and returns the path. */
  write(name: string, token: string): Promise<string>;
  remove(): Promise<void>;
}

export async function createTokenFiles(): Promise<TokenFiles> {
  const root = await mkdtemp(join(tmpdir(), "t3c-tokens-"));
  const dir = join(root, "tokens");
  return {
    dir,
    async write(name, token) {
      const path = join(dir, name);
      await writeTokenFile(path, token);
      return path;
    },
    remove: () => rm(root, { recursive: true, force: true }),
  };
}
