import { chmod, lstat, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readPrivateFileText, replacePrivateFile, SerialWrites } from "../../src/durable/index.js";
import { ConnectorError } from "../../src/errors.js";

const invalid = (message: string) => new ConnectorError("state_dir_invalid", message);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "t3c-private-file-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("small private files", () => {
  it("writes 0600 in a 0700 directory it creates, leaves no temp file, and reads the text back", async () => {
    const path = join(dir, "state", "file.json");
    await replacePrivateFile(path, "one", invalid);
    await replacePrivateFile(path, "two", invalid);
    expect((await lstat(path)).mode & 0o777).toBe(0o600);
    expect((await lstat(join(dir, "state"))).mode & 0o777).toBe(0o700);
    expect(await readdir(join(dir, "state"))).toEqual(["file.json"]);
    expect(await readPrivateFileText(path, invalid)).toBe("two");
  });

  it("answers null when there is no file", async () => {
    expect(await readPrivateFileText(join(dir, "absent.json"), invalid)).toBeNull();
  });

  it("refuses, with the owner's error, a file other users can read", async () => {
    const path = join(dir, "open.json");
    await writeFile(path, "{}");
    await chmod(path, 0o644);
    const refusal = readPrivateFileText(path, invalid);
    await expect(refusal).rejects.toThrow(/mode 600/);
    await expect(refusal).rejects.toMatchObject({ code: "state_dir_invalid" });
  });

  it("refuses a symlink on read and on write, leaving its target untouched", async () => {
    const target = join(dir, "elsewhere.json");
    await writeFile(target, "kept", { mode: 0o600 });
    const path = join(dir, "link.json");
    await symlink(target, path);
    await expect(readPrivateFileText(path, invalid)).rejects.toThrow(/not a regular file/);
    await expect(replacePrivateFile(path, "changed", invalid)).rejects.toThrow(/not a regular file/);
    expect(await readFile(target, "utf8")).toBe("kept");
  });

  it("runs queued writes one after another, a failed one not stopping the next", async () => {
    const writes = new SerialWrites();
    const order: string[] = [];
    let releaseFirst!: () => void;
    const first = writes.run(
      () =>
        new Promise<void>((resolve) => {
          order.push("first started");
          releaseFirst = () => {
            order.push("first done");
            resolve();
          };
        }),
    );
    const failing = writes.run(async () => {
      order.push("second started");
      throw new Error("disk full");
    });
    const third = writes.run(async () => {
      order.push("third started");
    });
    await Promise.resolve();
    releaseFirst();
    await first;
    await expect(failing).rejects.toThrow("disk full");
    await third;
    expect(order).toEqual(["first started", "first done", "second started", "third started"]);
  });
});
