/**
 * docs/webhook-receiver.md, run as written: its shell blocks and its receiver.mjs are read from the
 * page (so the page cannot drift from what works), run in a fresh HOME against the simulator, and
 * an event must reach the receiver and be printed by it.
 *
 * What the test fills in, and only that: a free port instead of 8787 (the machine is shared), a
 * `t3-connector` on PATH that runs the built CLI, the read config of the simulator, and — since
 * tests do not download — the workspace's own copy of `standardwebhooks` linked where
 * `npm install standardwebhooks` would put it.
 */
import { type ChildProcess, exec, spawn } from "node:child_process";
import { once } from "node:events";
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { builtBin } from "@t3-connector/test-support/built-bins";
import { freePort } from "@t3-connector/test-support/free-port";
import { addThread, type SimEvents, startRun, startSimEvents } from "@t3-connector/test-support/sim-events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const DOC = fileURLToPath(new URL("../../../docs/webhook-receiver.md", import.meta.url));
const NPM_INSTALL = "npm install standardwebhooks";
const sh = promisify(exec);

let simEvents: SimEvents;
let home: string;
const children: ChildProcess[] = [];
/** Children whose stdio pipes have closed: no process of their group holds them any more. */
const closed = new WeakSet<ChildProcess>();

beforeAll(async () => {
  simEvents = await startSimEvents();
  home = await mkdtemp(path.join(os.tmpdir(), "t3-webhook-recipe-"));
});

afterAll(async () => {
  // The shell (dash keeps `sh -c` as the parent) dies on SIGTERM at once, while the connector under
  // it still writes its last-seen state as it shuts down. Both hold the stdout and stderr pipes, so
  // their closing, not the shell's exit, says the whole group is gone and HOME can be removed.
  const open = children.filter((child) => !closed.has(child));
  for (const child of open) {
    if (child.pid === undefined) continue;
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      // The group is already gone; its pipes close on their own.
    }
  }
  await Promise.all(open.map((child) => (closed.has(child) ? undefined : once(child, "close"))));
  await simEvents?.close();
  await rm(home, { recursive: true, force: true });
});

/** The fenced blocks of a Markdown page, in order, with their language. */
function fencedBlocks(markdown: string): Array<{ lang: string; text: string }> {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((match) => ({
    lang: match[1] ?? "",
    text: match[2] ?? "",
  }));
}

/** Starts a shell line in the background; resolves lines of its stdout or stderr as they come. */
function background(line: string, cwd: string, env: NodeJS.ProcessEnv) {
  // Its own process group, so stopping it stops what the shell started.
  const child = spawn("sh", ["-c", line], { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  children.push(child);
  child.on("close", () => closed.add(child));
  const seen: string[] = [];
  const waiters: Array<() => void> = [];
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on("line", (text) => {
      seen.push(text);
      for (const wake of waiters.splice(0)) wake();
    });
  }
  return {
    seen,
    /** The first line matching `pattern`; fails fast, with what was printed, if the process exits. */
    async line(pattern: RegExp): Promise<string> {
      for (;;) {
        const found = seen.find((text) => pattern.test(text));
        if (found !== undefined) return found;
        if (child.exitCode !== null)
          throw new Error(`"${line}" exited ${child.exitCode}:\n${seen.join("\n")}`);
        await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), once(child, "exit")]);
      }
    },
  };
}

describe("docs/webhook-receiver.md", () => {
  it("works as written: the receiver verifies and prints an event the connector sends", async () => {
    const blocks = fencedBlocks(await readFile(DOC, "utf8"));
    const [setup, connect] = blocks.filter((block) => block.lang === "sh");
    const receiver = blocks.find((block) => block.lang === "js");
    if (setup === undefined || connect === undefined || receiver === undefined) {
      throw new Error("docs/webhook-receiver.md no longer has its two sh blocks and its receiver.mjs");
    }
    const port = String(await freePort());
    const withPort = (text: string) => text.replaceAll("8787", port);
    const lines = withPort(setup.text)
      .split("\n")
      .filter((line) => line.trim() !== "");
    const serverIndex = lines.findIndex((line) => line.includes("node receiver.mjs"));
    expect(serverIndex, "the recipe starts the receiver with node receiver.mjs").toBeGreaterThan(0);
    expect(setup.text, `the recipe installs the package with ${NPM_INSTALL}`).toContain(NPM_INSTALL);

    // Tests do not download: where npm would install the package, link the workspace's copy.
    const require = createRequire(fileURLToPath(new URL("../package.json", import.meta.url)));
    const installed = await realpath(path.dirname(require.resolve("standardwebhooks/package.json")));
    const offline = `mkdir -p node_modules && ln -s '${installed}' node_modules/standardwebhooks`;
    const bin = path.join(home, "bin");
    await mkdir(bin);
    await writeFile(
      path.join(bin, "t3-connector"),
      `#!/bin/sh\nexec '${process.execPath}' '${builtBin("t3-connector")}' "$@"\n`,
    );
    await chmod(path.join(bin, "t3-connector"), 0o755);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: home,
      PATH: `${bin}:${process.env.PATH ?? ""}`,
      T3_CONNECTOR_CONFIG: simEvents.simConfig.configPath,
    };
    delete env.XDG_STATE_HOME;

    // The steps before the receiver starts, as one script run from HOME (the recipe's cd included).
    const before = lines.slice(0, serverIndex).map((line) => line.replace(NPM_INSTALL, offline));
    await sh(`set -e\n${before.join("\n")}\npwd`, { cwd: home, env }).then(({ stdout }) => {
      expect(stdout.trim()).toBe(path.join(home, "t3-hook"));
    });
    const directory = path.join(home, "t3-hook");
    // "save receiver.mjs (below)"
    await writeFile(path.join(directory, "receiver.mjs"), withPort(receiver.text));

    const server = background((lines[serverIndex] ?? "").replace(/#.*$/, "").trim(), directory, env);
    await server.line(new RegExp(`listening on http://127.0.0.1:${port}/hook`));

    const connector = background(withPort(connect.text).trim(), directory, env);
    await connector.line(/following "alpha"/);

    const threadId = addThread(simEvents.env, "Recipe check");
    await startRun(simEvents.env, threadId, { reply: "done" });
    simEvents.env.clock.advance(1_000);
    expect(await server.line(/^run\.completed on alpha\//)).toContain('"Recipe check"');
    expect(connector.seen.join("\n")).not.toContain("token_file_invalid");
  });
});
