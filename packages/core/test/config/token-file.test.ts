import {
  chmod,
  chown,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readTokenFile, writeTokenFile } from "../../src/config/index.js";
import { ConnectorError } from "../../src/errors.js";

const TOKEN = "tok_SECRET_value_0123456789";

let root: string;
let dir: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "t3c-token-"));
  dir = join(root, "tokens");
  await mkdir(dir, { mode: 0o700 });
  await chmod(dir, 0o700);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function tokenFile(content: string, mode = 0o600, name = "a"): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content, { mode });
  await chmod(path, mode);
  return path;
}

async function refusal(promise: Promise<unknown>): Promise<ConnectorError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ConnectorError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("reading a token file", () => {
  it("returns the trimmed token of a private file", async () => {
    const path = await tokenFile(`  ${TOKEN}\n\n`);
    await expect(readTokenFile(path)).resolves.toBe(TOKEN);
  });

  it.each([
    ["world-readable", 0o604],
    ["group-readable", 0o640],
    ["group-writable", 0o620],
  ])("refuses a %s token file and never prints the token", async (_name, mode) => {
    const path = await tokenFile(TOKEN, mode);
    const error = await refusal(readTokenFile(path));
    expect(error.code).toBe("token_file_invalid");
    expect(error.message).toContain("must have mode 600");
    expect(error.message).toContain(path);
    expect(error.message).not.toContain(TOKEN);
  });

  it("refuses a symlinked token file even when the target is private", async () => {
    const target = await tokenFile(TOKEN, 0o600, "real");
    const link = join(dir, "link");
    await symlink(target, link);
    const error = await refusal(readTokenFile(link));
    expect(error.code).toBe("token_file_invalid");
    expect(error.message).toContain("symbolic link");
    expect(error.message).not.toContain(TOKEN);
  });

  it("refuses a token file owned by another user", async () => {
    const path = await tokenFile(TOKEN);
    const uid = process.getuid?.() ?? 0;
    if (uid === 0) {
      // As root the file really can belong to someone else.
      await chown(path, 65_534, 65_534);
      const error = await refusal(readTokenFile(path));
      expect(error.message).toContain("owned by uid 65534");
    }
    // Whoever runs the test: the same file seen by a different current user is refused.
    const error = await refusal(readTokenFile(path, { currentUid: uid + 4242 }));
    expect(error.code).toBe("token_file_invalid");
    expect(error.message).toContain("not by the current user");
    expect(error.message).not.toContain(TOKEN);
  });

  it("refuses an empty or whitespace-only token file", async () => {
    const empty = await tokenFile("", 0o600, "empty");
    expect((await refusal(readTokenFile(empty))).message).toContain("is empty");
    const blank = await tokenFile(" \n\t\n", 0o600, "blank");
    expect((await refusal(readTokenFile(blank))).message).toContain("is empty");
  });

  it("refuses a file that holds more than one word, without echoing it", async () => {
    const path = await tokenFile(`${TOKEN}\nsecond-line`);
    const error = await refusal(readTokenFile(path));
    expect(error.message).toContain("does not hold a single token");
    expect(error.message).not.toContain(TOKEN);
    expect(error.message).not.toContain("second-line");
  });

  it.each([0o750, 0o705, 0o755])("refuses a token in a directory with mode %o", async (mode) => {
    const path = await tokenFile(TOKEN);
    await chmod(dir, mode);
    const error = await refusal(readTokenFile(path));
    expect(error.code).toBe("token_file_invalid");
    expect(error.message).toContain("must be 700");
  });

  it("refuses a missing token file, and a directory in its place", async () => {
    expect((await refusal(readTokenFile(join(dir, "none")))).message).toContain("does not exist");
    await mkdir(join(dir, "sub"), { mode: 0o700 });
    await chmod(join(dir, "sub"), 0o600);
    expect((await refusal(readTokenFile(join(dir, "sub")))).message).toContain("not a regular file");
  });

  it("names what the file is and the fix its caller gives, e.g. a missing --auth-token-file", async () => {
    const path = join(dir, "bearer");
    const error = await refusal(
      readTokenFile(path, { what: "--auth-token-file", whenMissing: "create it with: openssl rand -hex 32" }),
    );
    expect(error.message).toBe(
      `--auth-token-file ${path} does not exist; create it with: openssl rand -hex 32`,
    );
    expect(error.message).not.toContain("pair the environment");
  });
});

describe("writing a token file", () => {
  it("creates the directory 700 and the file 600, readable back", async () => {
    const path = join(root, "new", "deeper", "token");
    await writeTokenFile(path, ` ${TOKEN}\n`);
    expect((await stat(join(root, "new", "deeper"))).mode & 0o777).toBe(0o700);
    expect((await lstat(path)).mode & 0o777).toBe(0o600);
    expect(await readFile(path, "utf8")).toBe(`${TOKEN}\n`);
    await expect(readTokenFile(path)).resolves.toBe(TOKEN);
  });

  it("replaces an existing token and leaves no temp file behind", async () => {
    const path = await tokenFile("old-token");
    await writeTokenFile(path, TOKEN);
    await expect(readTokenFile(path)).resolves.toBe(TOKEN);
    expect(await readdir(dir)).toEqual(["a"]);
  });

  it("refuses a directory other users can enter, and a value that is not a token", async () => {
    await chmod(dir, 0o755);
    const error = await refusal(writeTokenFile(join(dir, "t"), TOKEN));
    expect(error.message).toContain("must be 700");
    expect(error.message).not.toContain(TOKEN);
    await chmod(dir, 0o700);
    const notToken = await refusal(writeTokenFile(join(dir, "t"), "two words"));
    expect(notToken.code).toBe("token_file_invalid");
    expect(notToken.message).not.toContain("two words");
  });
});
