/**
 * docs/push-to-phone.md, run as written: its shell blocks and push-to-phone.mjs are read from the
 * page, run in a fresh HOME with the built `t3-connector events` against a real gate, and a stand-in
 * ntfy server on loopback must receive the push for an approval request, with the approval link
 * as its click target.
 *
 * What the test fills in, and only that: free ports instead of 8788 and the ntfy server's, a
 * `t3-connector` on PATH that runs the built CLI, the read and write configs, and (tests do not
 * download) the workspace's own `standardwebhooks` linked where `npm install` would put it.
 */
import { type ChildProcess, exec, spawn } from "node:child_process";
import { once } from "node:events";
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { builtBin } from "@t3-connector/test-support/built-bins";
import { freePort } from "@t3-connector/test-support/free-port";
import { type RealGate, startRealGate } from "@t3-connector/test-support/real-gate";
import { type SimEvents, startSimEvents } from "@t3-connector/test-support/sim-events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const DOC = fileURLToPath(new URL("../../../../docs/push-to-phone.md", import.meta.url));
const NPM_INSTALL = "npm install standardwebhooks";
const ORIGIN = "https://t3c.example.com";
const sh = promisify(exec);

let gate: RealGate;
let simEvents: SimEvents;
let home: string;
let ntfy: Server;
const pushes: Array<Record<string, unknown>> = [];
const pushWaiters: Array<() => void> = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "t3-push-recipe-"));
  [gate, simEvents] = await Promise.all([
    startRealGate({ remoteApproval: { origin: ORIGIN, oauthStateDir: path.join(home, "oauth") } }),
    startSimEvents(),
  ]);
  // The stand-in ntfy: records each JSON publish and answers as ntfy does.
  ntfy = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      pushes.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>);
      for (const wake of pushWaiters.splice(0)) wake();
      response.writeHead(200, { "Content-Type": "application/json" }).end("{}");
    });
  });
  ntfy.listen(0, "127.0.0.1");
  await once(ntfy, "listening");
}, 60_000);

afterAll(async () => {
  for (const child of children) {
    if (child.pid !== undefined && child.exitCode === null) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
    }
  }
  await Promise.all(children.map((child) => (child.exitCode === null ? once(child, "close") : undefined)));
  ntfy?.close();
  await simEvents?.close();
  await gate?.close();
  await rm(home, { recursive: true, force: true });
});

function fencedBlocks(markdown: string): Array<{ lang: string; text: string }> {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((match) => ({
    lang: match[1] ?? "",
    text: match[2] ?? "",
  }));
}

/** A shell line in the background, in its own process group; resolves lines it prints. */
function background(line: string, cwd: string, env: NodeJS.ProcessEnv) {
  const child = spawn("sh", ["-c", line], { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  children.push(child);
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
        if (child.exitCode !== null)
          throw new Error(`"${line}" exited ${child.exitCode}:\n${seen.join("\n")}`);
        await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), once(child, "exit")]);
      }
    },
  };
}

async function nextPush(match: (push: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  for (;;) {
    const found = pushes.find(match);
    if (found !== undefined) return found;
    await new Promise<void>((resolve) => pushWaiters.push(resolve));
  }
}

describe("docs/push-to-phone.md", () => {
  it("works as written: an approval request reaches the phone's ntfy topic with the approval link", async () => {
    const blocks = fencedBlocks(await readFile(DOC, "utf8"));
    const [setup, connect] = blocks.filter((block) => block.lang === "sh");
    const script = blocks.find((block) => block.lang === "js");
    if (setup === undefined || connect === undefined || script === undefined) {
      throw new Error("docs/push-to-phone.md no longer has its two sh blocks and push-to-phone.mjs");
    }
    const port = String(await freePort());
    const ntfyServer = `http://127.0.0.1:${(ntfy.address() as AddressInfo).port}`;
    const fill = (text: string) =>
      text.replaceAll("8788", port).replaceAll("https://ntfy.example.com", ntfyServer);
    const lines = fill(setup.text)
      .split("\n")
      .filter((line) => line.trim() !== "" && !line.trim().startsWith("#"));
    const serverIndex = lines.findIndex((line) => line.includes("node push-to-phone.mjs"));
    expect(serverIndex).toBeGreaterThan(0);
    expect(setup.text).toContain(NPM_INSTALL);

    const require = createRequire(fileURLToPath(new URL("../../../events/package.json", import.meta.url)));
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
      T3_CONNECTOR_WRITE_CONFIG: gate.config.path,
    };
    delete env.XDG_STATE_HOME;

    const before = lines.slice(0, serverIndex).map((line) => line.replace(NPM_INSTALL, offline));
    await sh(`set -e\n${before.join("\n")}\npwd`, { cwd: home, env }).then(({ stdout }) => {
      expect(stdout.trim()).toBe(path.join(home, "t3-push"));
    });
    const directory = path.join(home, "t3-push");
    await writeFile(path.join(directory, "push-to-phone.mjs"), fill(script.text));
    const receiver = background((lines[serverIndex] ?? "").trim(), directory, env);
    await receiver.line(new RegExp(`listening on http://127.0.0.1:${port}/hook`));
    const connector = background(fill(connect.text).trim(), directory, env);
    await connector.line(/approval events from the gate on port/);

    const asked = await gate.relay({
      op: "request_approval",
      purpose: "pin the release thread",
      actions: ["thread.pin"],
      client: { name: "ChatGPT", signedInAt: "2026-12-06T17:02:00.000Z" },
    });
    const requestId = (asked.body as { requestId: string }).requestId;
    const push = await nextPush((candidate) => candidate.title === "ChatGPT asks to write");
    expect(push).toMatchObject({
      topic: "t3-approvals-7f3k2",
      click: `${ORIGIN}/approve?request=${requestId}`,
      priority: 4,
    });
    expect(push.message).toContain('"pin the release thread"');
    expect(push.message).toContain("thread.pin");
    await receiver.line(new RegExp(`pushed approval\\.requested for ${requestId}`));
  }, 60_000);
});
