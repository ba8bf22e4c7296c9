import { DIRECTORY_MODE, errorCode, type JournalFs, stateDirInvalid } from "./fs.js";

/**
 * Make sure `path` is a private directory of ours: create it 0700 when missing, and refuse it when
 * it is a symlink, not a directory, owned by another user, or open to group/others (an existing
 * directory is never loosened or silently tightened: if it was open, its files may have leaked).
 */
export async function ensurePrivateDirectory(fs: JournalFs, path: string, label: string): Promise<void> {
  let created = false;
  try {
    created = (await fs.mkdir(path, { recursive: true, mode: DIRECTORY_MODE })) !== undefined;
  } catch (error) {
    // EEXIST comes back for a dangling symlink or a file in the way: the checks below explain it.
    if (errorCode(error) !== "EEXIST" && errorCode(error) !== "ENOTDIR") {
      throw stateDirInvalid(
        `the ${label} ${path} cannot be created (${errorCode(error) ?? "unknown error"})`,
        error,
      );
    }
  }
  await checkPrivateDirectory(fs, path, label);
  if (created) {
    await fs.chmod(path, DIRECTORY_MODE); // mkdir's mode is filtered by the umask
    await checkPrivateDirectory(fs, path, label);
  }
}

async function checkPrivateDirectory(fs: JournalFs, path: string, label: string): Promise<void> {
  let stat: Awaited<ReturnType<JournalFs["lstat"]>>;
  try {
    stat = await fs.lstat(path);
  } catch (error) {
    throw stateDirInvalid(
      `the ${label} ${path} cannot be read (${errorCode(error) ?? "unknown error"})`,
      error,
    );
  }
  if (stat.isSymbolicLink())
    throw stateDirInvalid(`the ${label} ${path} is a symlink; refusing to follow it`);
  if (!stat.isDirectory()) throw stateDirInvalid(`the ${label} ${path} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid)
    throw stateDirInvalid(`the ${label} ${path} belongs to another user`);
  if ((stat.mode & 0o077) !== 0) {
    throw stateDirInvalid(
      `the ${label} ${path} is open to other users (mode ${(stat.mode & 0o777).toString(8)}); it must be 0700`,
    );
  }
}
