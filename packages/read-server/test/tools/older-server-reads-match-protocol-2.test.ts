/**
 * A differential check of all fifteen read tools on T3 0.0.31: two
 * 0.0.31 environments (a normal install whose bounded route answers the web app's HTML, and one
 * run from source whose bounded route answers 503 text/plain) answer exactly what a protocol-2
 * environment seeded the same way answers, once each environment's alias, id and server-minted
 * ids are set aside. older-server-reads.test.ts checks each tool's answer on its own.
 */

import { type SimReadSetup, startSimRead } from "@t3-connector/test-support/sim-context";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readToolDefinitions } from "../../src/tools/index.js";

const ALIASES = ["current", "oldweb", "oldsrc"] as const;
type Alias = (typeof ALIASES)[number];
const OLDER: readonly Alias[] = ["oldweb", "oldsrc"];
const PAST = Date.now() - 30 * 60_000;
let setup: SimReadSetup;

beforeAll(async () => {
  setup = await startSimRead({
    simulator: {
      environments: [
        { alias: "current", environmentId: "env-current", seed: "empty" },
        { alias: "oldweb", environmentId: "env-oldweb", seed: "empty", compat: "0.0.31" },
        { alias: "oldsrc", environmentId: "env-oldsrc", seed: "empty", compat: "0.0.31", webBuild: false },
      ],
    },
    definitions: readToolDefinitions,
    allowedProjects: { current: ["p-main"], oldweb: ["p-main"], oldsrc: ["p-main"] },
  });
  for (const alias of ALIASES) {
    const model = setup.sim.environment(alias).model;
    model.addProject({ id: "p-main", title: "main", workspaceRoot: "/home/sim/code/main" });
    model.addThread({
      id: "t-done",
      projectId: "p-main",
      title: "Done work",
      state: "completed",
      reply: "All done.",
      at: PAST,
    });
    model.addThread({
      id: "t-ask",
      projectId: "p-main",
      title: "Choose scope",
      state: "waiting_user_input",
      at: PAST,
    });
  }
});
afterAll(async () => {
  await setup?.close();
});

/** Every call each tool answers for one environment. */
function callsFor(alias: Alias): [string, Record<string, unknown>][] {
  return [
    ["t3_projetos", { environment: alias }],
    ["t3_threads", { environment: alias }],
    ["t3_thread", { environment: alias, threadId: "t-done" }],
    ["t3_thread", { environment: alias, threadId: "t-ask" }],
    ["t3_mensagens", { environment: alias, threadId: "t-done" }],
    [
      "t3_thread_read_batch",
      {
        items: [
          { environment: alias, threadId: "t-done" },
          { environment: alias, threadId: "t-ask" },
        ],
      },
    ],
    ["t3_buscar_threads", { environment: alias, search: "scope" }],
    ["t3_atencao", { environment: alias }],
    ["t3_aguardar_thread", { environment: alias, threadId: "t-done", timeoutMs: 1000 }],
    ["t3_providers", { environment: alias }],
    ["t3_control_plane", { environment: alias }],
    ["t3_diff", { environment: alias, threadId: "t-done" }],
    ["t3_diff", { environment: alias, threadId: "t-done", scope: "thread" }],
    ["t3_worktree", { environment: alias, threadId: "t-done" }],
  ];
}

/** The answer with this environment's own alias and id replaced, so environments compare. */
function neutral(alias: Alias, answer: Record<string, unknown>): unknown {
  // Ids the server mints itself (runtime requests, runs' attempts) are random per environment.
  const text = JSON.stringify(answer)
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "MINTED")
    .replaceAll(`env-${alias}`, "ENV-ID")
    .replaceAll(`"${alias}"`, '"ALIAS"');
  // Elapsed times and read instants differ between two calls; everything else must match.
  return JSON.parse(text, (key, value) =>
    /^(elapsedMs|readAt|checkedAt|observedAt|generatedAt)$/.test(key) ? "*" : value,
  );
}

describe("the read tools on a 0.0.31 environment", () => {
  it("lists the 0.0.31 environments as available, with their version", async () => {
    const out = await setup.call("t3_ambientes", { check: true });
    const rows = out.environments as { alias: string; available?: boolean; version?: string | null }[];
    for (const alias of OLDER) {
      expect(rows.find((row) => row.alias === alias)).toMatchObject({ available: true, version: "0.0.31" });
    }
  });

  for (const alias of OLDER) {
    it(`answers all twelve other tools on ${alias} as on the protocol-2 environment`, async () => {
      const expected = callsFor("current");
      const actual = callsFor(alias);
      for (let i = 0; i < actual.length; i += 1) {
        const [name, args] = actual[i] as [string, Record<string, unknown>];
        const [, currentArgs] = expected[i] as [string, Record<string, unknown>];
        const older = neutral(alias, await setup.call(name, args));
        const newer = neutral("current", await setup.call(name, currentArgs));
        expect({ tool: name, answer: older }).toEqual({ tool: name, answer: newer });
      }
    });
  }
});
