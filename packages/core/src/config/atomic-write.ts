import { randomBytes } from "node:crypto";
import { open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Replaces `path` with `contents` atomically: a temp file in the same directory (created
 * exclusively, mode 600), flushed, renamed over the target, then the directory flushed. A reader
 * sees the old file or the new one, never half of either. The directory must exist.
 */
export async function writeFileAtomically(path: string, contents: string): Promise<void> {
  const directory = dirname(path);
  const temp = join(directory, `.${basename(path)}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`);
  const handle = await open(temp, "wx", 0o600);
  try {
    await handle.writeFile(contents, "utf8");
    await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  const directoryHandle = await open(directory, "r");
  try {
    await directoryHandle.sync();
  } finally {
    await directoryHandle.close();
  }
}
