/**
 * Runs a page of docs/ as a reader would: its fenced blocks, the lines of its set-up block in a
 * fresh HOME with a `t3-connector` on PATH that runs the built CLI, and its long-running lines in
 * the background. What a recipe test fills in stays in the test (ports, configs); what every
 * recipe needs — the shell, the shim, the offline install, a clean stop — is here once.
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
import { builtBin } from "./built-bins.js";

const sh = promisify(exec);

export interface FencedBlock {
  readonly lang: string;
  readonly text: string;
}

/** A shell line running in the background, in its own process group. */
export interface BackgroundLine {
  /** Every line it printed so far, stdout and stderr. */
  readonly seen: readonly string[];
  /** The first line matching `pattern`; fails fast, with what was printed, if the process exits. */
  line(pattern: RegExp): Promise<string>;
}

/** The fenced blocks of a Markdown page, in order, with their language. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((match) => ({
    lang: match[1] ?? "",
    text: match[2] ?? "",
  }));
}

/** A page's fenced blocks: its `sh` blocks in order and its first `js` block (the script it saves). */
export async function recipeBlocks(
  docPath: string,
): Promise<{ setup: string; connect: string; script: string }> {
  const blocks = fencedBlocks(await readFile(docPath, "utf8"));
  const [setup, connect] = blocks.filter((block) => block.lang === "sh");
  const script = blocks.find((block) => block.lang === "js");
  if (setup === undefined || connect === undefined || script === undefined) {
    throw new Error(`${docPath} no longer has its two sh blocks and its script`);
  }
  return { setup: setup.text, connect: connect.text, script: script.text };
}

export class DocRecipeHome {
  readonly home: string;
  /** The recipe's environment; a test adds what it fills in (configs) before running lines. */
  readonly env: NodeJS.ProcessEnv;
  readonly #children: ChildProcess[] = [];
  /** Children whose stdio pipes have closed: no process of their group holds them any more. */
  readonly #closed = new WeakSet<ChildProcess>();

  private constructor(home: string, env: NodeJS.ProcessEnv) {
    this.home = home;
    this.env = env;
  }

  /** A fresh HOME whose PATH starts with a `t3-connector` that runs the built CLI. */
  static async create(prefix: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<DocRecipeHome> {
    const home = await mkdtemp(path.join(os.tmpdir(), prefix));
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
      ...extraEnv,
    };
    delete env.XDG_STATE_HOME;
    return new DocRecipeHome(home, env);
  }

  /**
   * Runs the set-up lines before `serverIndex` as one script from HOME, with `npm install <pkg>`
   * replaced by a link to the workspace's own copy (tests do not download). Answers the folder the
   * script ended in (the recipe's own `cd`).
   */
  async runSetup(
    lines: readonly string[],
    install: { command: string; resolveFrom: string },
  ): Promise<string> {
    const pkg = install.command.replace(/^npm install /, "");
    const require = createRequire(fileURLToPath(install.resolveFrom));
    const installed = await realpath(path.dirname(require.resolve(`${pkg}/package.json`)));
    const offline = `mkdir -p node_modules && ln -s '${installed}' node_modules/${pkg}`;
    const script = lines.map((line) => line.replace(install.command, offline));
    const { stdout } = await sh(`set -e\n${script.join("\n")}\npwd`, { cwd: this.home, env: this.env });
    return stdout.trim();
  }

  /** Starts a shell line in the background, in its own process group; reads the lines it prints. */
  background(line: string, cwd: string): BackgroundLine {
    const child = spawn("sh", ["-c", line], {
      cwd,
      env: this.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    this.#children.push(child);
    child.on("close", () => this.#closed.add(child));
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
      async line(pattern: RegExp): Promise<string> {
        for (;;) {
          const found = seen.find((text) => pattern.test(text));
          if (found !== undefined) return found;
          if (child.exitCode !== null) {
            throw new Error(`"${line}" exited ${child.exitCode}:\n${seen.join("\n")}`);
          }
          await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), once(child, "exit")]);
        }
      },
    };
  }

  /**
   * Stops every background line and removes HOME. The shell (dash keeps `sh -c` as the parent)
   * dies on SIGTERM at once, while what runs under it may still write its state as it shuts down.
   * Both hold the stdout and stderr pipes, so their closing, not the shell's exit, says the whole
   * group is gone and HOME can be removed.
   */
  async close(): Promise<void> {
    const open = this.#children.filter((child) => !this.#closed.has(child));
    for (const child of open) {
      if (child.pid === undefined) continue;
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // The group is already gone; its pipes close on their own.
      }
    }
    await Promise.all(open.map((child) => (this.#closed.has(child) ? undefined : once(child, "close"))));
    await rm(this.home, { recursive: true, force: true });
  }
}
