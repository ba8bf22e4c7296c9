import { EXIT_CODES } from "@t3-connector/core/cli-support";
import { describe, expect, it } from "vitest";
import { runOps } from "./support/cli-run.js";
import type { SimOps } from "./support/sim-ops.js";
import { useSimOpsPerTest } from "./support/sim-ops-per-test.js";

let setup: SimOps;
let env: Record<string, string>;

useSimOpsPerTest((started) => {
  setup = started;
  env = { T3_CONNECTOR_OPS_CONFIG: started.configPath };
});

const createArgs = (id: string, title = "T") => [
  "alpha",
  "create",
  "--project",
  "website",
  "--title",
  title,
  "--instance",
  "codex",
  "--model",
  "gpt-5.6-sol",
  "--client-request-id",
  id,
];

describe("t3-connector-ops CLI", () => {
  it("ls prints one JSON document when stdout is not a terminal, and a table on a terminal", async () => {
    const piped = await runOps(["ls"], { env });
    expect(piped.code).toBe(0);
    const listing = piped.json() as {
      environments: {
        alias: string;
        environmentId: string;
        projects: { threads: Record<string, unknown>[] }[];
      }[];
      unreachable: unknown[];
    };
    expect(listing.environments.map((e) => e.alias)).toEqual(["alpha", "beta"]);
    const thread = listing.environments[0]?.projects[0]?.threads[0];
    expect(Object.keys(thread ?? {}).sort()).toEqual(
      [
        "ageSeconds",
        "icon",
        "settled",
        "state",
        "statusRun",
        "pinned",
        "snoozedUntil",
        "woke",
        "threadId",
        "title",
        "updatedAt",
      ].sort(),
    );
    const table = await runOps(["ls"], { env, tty: true });
    expect(table.stdout).toMatch(/^alpha {2}\(/);
    expect(table.stdout).toContain("● ");
    const forced = await runOps(["ls", "--json"], { env, tty: true });
    expect(() => forced.json()).not.toThrow();
  });

  it("prints every read as lines for a person on a terminal, and as JSON otherwise", async () => {
    const reads: [string[], string][] = [
      [["thread", "alpha:Run the test suite?"], "◆ needs_intervention"],
      [["alpha", "list", "--limit", "3"], "● running"],
      [["alpha", "projects"], "website"],
      [["alpha", "providers", "--instance", "codex"], "gpt-5.6-sol"],
      [["timeline", "alpha:Run the test suite?"], "user: "],
    ];
    for (const [argv, expected] of reads) {
      const table = await runOps(argv, { env, tty: true });
      expect(table.code).toBe(0);
      expect(table.stdout).toContain(expected);
      expect(() => JSON.parse(table.stdout)).toThrow();
      const piped = await runOps(argv, { env });
      expect(() => piped.json()).not.toThrow();
    }
  });

  it("ls exits 69 when every environment failed, so an empty listing never reads as no threads", async () => {
    await setup.env("alpha").stop();
    await setup.env("beta").stop();
    const run = await runOps(["ls"], { env });
    expect(run.code).toBe(EXIT_CODES.unavailable);
    expect((run.json() as { unreachable: unknown[] }).unreachable).toHaveLength(2);
  });

  it("creates from a brief on stdin, and a repeat says created: false without a second command", async () => {
    const first = await runOps(createArgs("X"), { env, stdin: "Write the brief\n" });
    expect(first.code).toBe(0);
    expect(first.json()).toMatchObject({ created: true, environment: { alias: "alpha" } });
    const count = setup.env("alpha").model.receivedCommands.length;
    const second = await runOps(createArgs("X"), { env, stdin: "Write the brief\n" });
    expect(second.json()).toMatchObject({
      created: false,
      threadId: (first.json() as { threadId: string }).threadId,
    });
    expect(setup.env("alpha").model.receivedCommands.length).toBe(count);
  });

  it("an ambiguous thread reference exits 65 and lists both candidates on stderr", async () => {
    await runOps(createArgs("a", "Parser cleanup A"), { env });
    await runOps(createArgs("b", "Parser cleanup B"), { env });
    const run = await runOps(["alpha", "thread", "parser cleanup"], { env });
    expect(run.code).toBe(EXIT_CODES.ambiguous);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^t3-connector-ops: ambiguous_thread: /);
    expect(run.stderr).toContain("Parser cleanup A");
    expect(run.stderr).toContain("Parser cleanup B");
  });

  it("send, settle, act thread.pin and query thread work through the CLI", async () => {
    const created = (await runOps(createArgs("s", "Send target"), { env })).json() as { threadId: string };
    const sent = await runOps(["send", "alpha:Send target", "--message-id", "m-1"], { env, stdin: "hello" });
    expect(sent.code).toBe(0);
    expect(sent.json()).toMatchObject({ status: "delivered", threadId: created.threadId });
    const pin = await runOps(
      [
        "alpha",
        "act",
        "thread.pin",
        "--operation-id",
        "pin-1",
        "--input",
        JSON.stringify({ threadId: created.threadId }),
      ],
      { env },
    );
    expect(pin.json()).toMatchObject({ action: "thread.pin", confirmation: [{ pinned: true }] });
    const read = await runOps(["alpha", "query", "thread"], {
      env,
      stdin: JSON.stringify({ threadId: created.threadId }),
    });
    expect(read.json()).toMatchObject({ threadId: created.threadId });
    const settled = await runOps(["alpha", "settle", "Empty draft"], { env });
    expect(settled.json()).toMatchObject({ settled: true });
    const refused = await runOps(["alpha", "settle", "Long migration run"], { env });
    expect(refused.code).toBe(EXIT_CODES.refused);
    expect(refused.stderr).toMatch(/^t3-connector-ops: guard_refused: /);
  });

  it("bad input exits 64 with code: message on stderr and sends nothing", async () => {
    const before = setup.env("alpha").model.receivedCommands.length;
    const badJson = await runOps(["alpha", "act", "thread.pin", "--operation-id", "o", "--input", "{"], {
      env,
    });
    expect(badJson.code).toBe(EXIT_CODES.usage);
    expect(badJson.stderr).toMatch(/^t3-connector-ops: invalid_input: /);
    const noEnv = await runOps(["act", "thread.pin", "--operation-id", "o", "--input", "{}"], { env });
    expect(noEnv.stderr).toMatch(/^t3-connector-ops: environment_required: .*2 are configured/);
    expect(noEnv.code).toBe(EXIT_CODES.usage);
    const missingOption = await runOps(["alpha", "create", "--title", "T"], { env });
    expect(missingOption.code).toBe(EXIT_CODES.usage);
    expect(missingOption.stderr).toMatch(/^t3-connector-ops: invalid_input: required option/);
    expect(setup.env("alpha").model.receivedCommands.length).toBe(before);
  });

  it("actions lists every action and read as JSON, and as a table on a terminal", async () => {
    const run = await runOps(["actions"], { env });
    const entries = run.json() as { name: string; kind: string; description: string; tool: string }[];
    expect(entries.filter((e) => e.kind === "action")).toHaveLength(47);
    expect(entries.find((e) => e.name === "thread.pin")).toMatchObject({
      tool: "t3_escrever_thread_pin",
      title: "Pin a thread",
      group: "organize",
      description: "Pins the thread to the top of the sidebar.",
    });
    expect(entries.find((e) => e.name === "thread")).toMatchObject({ kind: "read", tool: "t3_thread" });
    const table = await runOps(["actions"], { env, tty: true });
    expect(table.stdout).toMatch(/^action +thread\.archive +\[organize\] +Archive a thread$/m);
    expect(table.stdout).toMatch(/^action +thread\.delete +\[destructive\] Delete a thread$/m);
  });

  it("snooze and interrupt run through the CLI with the env prefix", async () => {
    const snoozed = await runOps(["alpha", "snooze", "Empty draft", "2030-01-01T00:00:00Z"], { env });
    expect(snoozed.json()).toMatchObject({
      action: "thread.snooze",
      confirmation: [{ snoozedUntil: "2030-01-01T00:00:00.000Z" }],
    });
    const stopped = await runOps(["alpha", "interrupt", "Long migration run", "--operation-id", "s1"], {
      env,
    });
    expect(stopped.json()).toMatchObject({ interrupted: true });
  });

  it("wait exits with the outcome's code", async () => {
    const ask = await runOps(createArgs("w"), { env, stdin: "[[sim:ask]]" });
    const { threadId } = ask.json() as { threadId: string };
    const run = await runOps(["wait", threadId, "--timeout", "10000"], { env });
    expect(run.code).toBe(2);
    expect(run.json()).toMatchObject({ outcome: "needs_human" });
  });

  it("--help shows examples and exit codes; an unknown environment exits 66", async () => {
    const help = await runOps(["--help"], { env });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Examples:");
    expect(help.stdout).toContain("Exit codes:");
    const createHelp = await runOps(["create", "--help"], { env });
    expect(createHelp.stdout).toContain("--client-request-id");
    const unknown = await runOps(["gamma", "query", "thread", "--input", "{}"], { env });
    expect(unknown.code).toBe(EXIT_CODES.notFound);
    expect(unknown.stderr).toMatch(/^t3-connector-ops: environment_unknown: /);
  });
});

describe("t3-connector-ops with one or no environment configured", () => {
  async function configWith(aliases: string[]): Promise<Record<string, string>> {
    const { readFile, writeFile } = await import("node:fs/promises");
    const document = JSON.parse(await readFile(setup.configPath, "utf8")) as {
      environments: Record<string, unknown>;
    };
    const kept = Object.fromEntries(
      Object.entries(document.environments).filter(([a]) => aliases.includes(a)),
    );
    const path = `${setup.dir}/ops-${aliases.length}.json`;
    await writeFile(path, JSON.stringify({ environments: kept }), { mode: 0o600 });
    return { T3_CONNECTOR_OPS_CONFIG: path };
  }

  it("runs a one-environment command in the only environment configured without naming it", async () => {
    const only = await configWith(["alpha"]);
    const run = await runOps(["projects"], { env: only });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(JSON.stringify(run.json())).toContain("website");
    // providers lists models: create and configure need one.
    const providers = await runOps(["providers", "--instance", "codex"], { env: only });
    expect(providers.code).toBe(0);
    const listed = providers.json() as { providers: { instanceId: string; models?: { slug: string }[] }[] };
    expect(listed.providers.map((provider) => provider.instanceId)).toEqual(["codex"]);
    expect(listed.providers[0]?.models?.map((model) => model.slug)).toContain("gpt-5.6-sol");
  });

  it("answers ls and environments with an empty config, and says how to add an environment", async () => {
    const none = await configWith([]);
    const ls = await runOps(["ls"], { env: none });
    expect(ls.code).toBe(0);
    expect(ls.json()).toMatchObject({ environments: [], unreachable: [] });
    expect(ls.stderr).toContain("t3-connector-ops environments add <alias> --url URL");
    const environments = await runOps(["environments"], { env: none });
    expect(environments.code).toBe(0);
    expect(environments.json()).toEqual([]);
    expect(environments.stderr).toContain("no environment is configured in");
    const projects = await runOps(["projects"], { env: none });
    expect(projects.code).toBe(EXIT_CODES.config);
    expect(projects.stderr).toMatch(/^t3-connector-ops: no_environments: .*environments add/);
  });

  it("environments remove takes the entry out and deletes its token file, down to an empty config", async () => {
    const { readFile, stat } = await import("node:fs/promises");
    const both = await configWith(["alpha", "beta"]);
    const path = both.T3_CONNECTOR_OPS_CONFIG as string;
    const first = await runOps(["environments", "remove", "beta"], { env: both });
    expect(first.code).toBe(0);
    expect(first.json()).toMatchObject({ removed: "beta", environmentsLeft: 1 });
    const tokenFile = (first.json() as { tokenFileRemoved: string }).tokenFileRemoved;
    await expect(stat(tokenFile)).rejects.toMatchObject({ code: "ENOENT" });
    const last = await runOps(["environments", "remove", "alpha"], { env: both });
    expect(last.json()).toMatchObject({ removed: "alpha", environmentsLeft: 0 });
    expect(JSON.parse(await readFile(path, "utf8"))).toEqual({ environments: {} });
    const unknown = await runOps(["environments", "remove", "alpha"], { env: both });
    expect(unknown.code).toBe(EXIT_CODES.notFound);
  });
});
