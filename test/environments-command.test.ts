import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { writeTokenFile } from "@t3-connector/core/config";
import { OPERATE_SCOPES, READ_SCOPES } from "@t3-connector/core/environments";
import {
  type AddEnvironmentRequest,
  addCommand,
  diagnoseCommand,
  type EnvironmentsConfigKind,
  moveCommand,
  pairCommand,
  READ_CONFIG,
  removeCommand,
  WRITE_CONFIG,
} from "@t3-connector/core/pairing";
import { OPS_CONFIG } from "@t3-connector/ops";
import type { Simulator } from "@t3-connector/t3-sim";
import {
  type EnvironmentsMachine,
  environmentsMachine,
  exists,
  GONE_URL,
  keysOf,
  modeOf,
  readConfigWithTokenFile,
  readJson,
  refusal,
  startAlphaAndBeta,
  writeJson,
} from "@t3-connector/test-support/environments-machine";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

// The one environments command of the three CLIs (ADR 0058), run once per kind of config file:
// the read config (tokens of exactly orchestration:read), write.json and ops.json (read +
// operate). What only one file has (the read config's projects, ops' extra names) is at the end.
// Each CLI's words reaching this code: test/cli-house-style.e2e.test.ts ("the same keys").

let sim: Simulator;
let m: EnvironmentsMachine;
const OLD_URL = GONE_URL;

beforeAll(async () => {
  sim = await startAlphaAndBeta();
});
afterAll(async () => {
  await sim?.close();
});
beforeEach(async () => {
  m = await environmentsMachine();
});
afterEach(async () => {
  await m.remove();
});

const KINDS = [READ_CONFIG, WRITE_CONFIG, OPS_CONFIG];

/** An answer's keys, sorted, from one line of names. */
const shape = (names: string) => names.split(" ").sort();

/** A pairing code that grants exactly the kind's scope set. */
function codeFor(kind: EnvironmentsConfigKind, alias = "alpha"): string {
  return sim.environment(alias).createPairingCode({ scopes: kind.scopes });
}

function addRequest(kind: EnvironmentsConfigKind, alias: string, url: string): AddEnvironmentRequest {
  return { alias, transport: { url }, ...(kind.limitsProjects ? { projects: { all: true as const } } : {}) };
}

function add(kind: EnvironmentsConfigKind, alias: string, url: string, code: string) {
  return addCommand({ kind, io: m.io(`${code}\n`).io }, addRequest(kind, alias, url));
}

/** The kind's file with `mine` added at alpha's address, then pointed at `url` by hand. */
async function addedAt(kind: EnvironmentsConfigKind, url: string): Promise<Record<string, unknown>> {
  expect((await add(kind, "mine", sim.environment("alpha").url, codeFor(kind))).exitCode).toBe(0);
  const document = await readJson(m.file(kind));
  document.environments.mine.url = url;
  await writeJson(m.file(kind), document);
  return document.environments.mine;
}

describe.each(KINDS)("environments add ($owner config)", (kind) => {
  it("pairs into a file that did not exist, exactly the file's scopes, private files, and answers the one shape", async () => {
    const alpha = sim.environment("alpha");
    const report = await add(kind, "mine", alpha.url, codeFor(kind));
    expect(report.exitCode).toBe(0);
    expect(keysOf(report.value)).toEqual(
      shape("alias configPath diagnosis environmentId expiresAt ok revoke scopes tokenFile"),
    );
    const tokenFile = m.tokenFile(kind, "mine");
    expect(report.value).toMatchObject({
      alias: "mine",
      environmentId: alpha.environmentId,
      configPath: m.file(kind),
      tokenFile,
      scopes: [...kind.scopes].sort(),
      ok: true,
      diagnosis: { alias: "mine", ok: true, scopes: [...kind.scopes].sort() },
      revoke: [{ token: kind.owner === "read" ? "read" : "operate", tokenFiles: [tokenFile] }],
    });
    const entry = (await readJson(m.file(kind))).environments.mine;
    expect(entry).toMatchObject({ environmentId: alpha.environmentId, url: alpha.url, tokenFile });
    expect(entry.allowedProjects === undefined).toBe(!kind.limitsProjects);
    expect(await modeOf(m.file(kind))).toBe(0o600);
    expect(await modeOf(tokenFile)).toBe(0o600);
    expect(await modeOf(path.dirname(tokenFile))).toBe(0o700);
  });

  it("refuses an alias or a machine the file has, a bad address and a silent server, spending no code", async () => {
    expect((await add(kind, "mine", sim.environment("alpha").url, codeFor(kind))).exitCode).toBe(0);
    const beta = sim.environment("beta");
    const code = codeFor(kind, "beta");
    const alias = await refusal(add(kind, "mine", beta.url, code));
    expect(alias).toMatchObject({ code: "environment_exists", message: expect.stringContaining('"mine"') });
    const machine = await refusal(add(kind, "again", sim.environment("alpha").url, code));
    expect(machine).toMatchObject({
      code: "environment_exists",
      message: expect.stringContaining('as "mine"'),
    });
    expect(await refusal(add(kind, "b", "http://example.com", code))).toMatchObject({
      code: "invalid_input",
      message: expect.stringContaining("must be https"),
    });
    expect(await refusal(add(kind, "b", OLD_URL, code))).toMatchObject({ code: "environment_unavailable" });
    expect(await refusal(add(kind, "Bad_Alias", beta.url, code))).toMatchObject({ code: "invalid_input" });
    // None of the refusals spent the code.
    expect((await add(kind, "b", beta.url, code)).exitCode).toBe(0);
  });

  it("refuses a used pairing code and leaves the file as it was, with no token file", async () => {
    expect((await add(kind, "mine", sim.environment("alpha").url, codeFor(kind))).exitCode).toBe(0);
    const before = await readFile(m.file(kind), "utf8");
    const code = codeFor(kind, "beta");
    expect((await add(kind, "b", sim.environment("beta").url, code)).exitCode).toBe(0);
    await removeCommand({ kind, io: m.io().io }, { alias: "b" });
    expect(await refusal(add(kind, "b", sim.environment("beta").url, code))).toMatchObject({
      code: "pairing_failed",
    });
    expect(await readFile(m.file(kind), "utf8")).toBe(before);
    expect(await exists(m.tokenFile(kind, "b"))).toBe(false);
  });
});

describe.each(KINDS.filter((kind) => kind.owner !== "read"))("an operate token ($owner config)", (kind) => {
  it("is never saved where T3 granted only the read scope", async () => {
    const readOnly = sim.environment("alpha").createPairingCode({ scopes: READ_SCOPES });
    expect(await refusal(add(kind, "mine", sim.environment("alpha").url, readOnly))).toMatchObject({
      code: "scope_not_granted",
    });
    expect(await exists(m.file(kind))).toBe(false);
    expect(await exists(m.tokenFile(kind, "mine"))).toBe(false);
  });

  it("never goes into a file the read config names, and no code is spent", async () => {
    const shared = m.tokenFile(kind, "mine");
    const alpha = sim.environment("alpha");
    await writeJson(m.env.T3_CONNECTOR_CONFIG as string, readConfigWithTokenFile(shared));
    const code = codeFor(kind);
    expect(await refusal(add(kind, "mine", alpha.url, code))).toMatchObject({ code: "token_file_invalid" });
    expect(await exists(m.file(kind))).toBe(false);
    await writeJson(m.env.T3_CONNECTOR_CONFIG as string, { environments: {} });
    expect((await add(kind, "mine", alpha.url, code)).exitCode).toBe(0);
    await writeJson(m.env.T3_CONNECTOR_CONFIG as string, readConfigWithTokenFile(shared));
    const pair = pairCommand({ kind, io: m.io(codeFor(kind)).io }, { environment: "mine" });
    expect(await refusal(pair)).toMatchObject({ code: "token_file_invalid" });
  });
});

describe.each(KINDS)("environments remove ($owner config)", (kind) => {
  it("takes the entry out, deletes its token file, says the token lives on at T3, and refuses an unknown alias", async () => {
    expect((await add(kind, "mine", sim.environment("alpha").url, codeFor(kind))).exitCode).toBe(0);
    const report = await removeCommand({ kind, io: m.io().io }, { alias: "mine" });
    expect(report.exitCode).toBe(0);
    expect(keysOf(report.value)).toEqual(shape("configPath environmentsLeft note removed tokenFileRemoved"));
    expect(report.value).toMatchObject({
      removed: "mine",
      configPath: m.file(kind),
      tokenFileRemoved: m.tokenFile(kind, "mine"),
      environmentsLeft: 0,
      note: expect.stringContaining("t3 auth session revoke"),
    });
    expect(await exists(m.tokenFile(kind, "mine"))).toBe(false);
    expect((await readJson(m.file(kind))).environments).toEqual({});
    const again = await refusal(removeCommand({ kind, io: m.io().io }, { alias: "mine" }));
    expect(again).toMatchObject({
      code: "environment_unknown",
      message: expect.stringContaining('no environment "mine"'),
    });
  });
});

describe.each(KINDS)("environments move ($owner config)", (kind) => {
  it("points the entry at the same machine's new address, keeps its token and other keys, and verifies it", async () => {
    const before = await addedAt(kind, OLD_URL);
    const token = await readFile(m.tokenFile(kind, "mine"), "utf8");
    const alpha = sim.environment("alpha");
    const moved = await moveCommand(
      { kind, io: m.io().io },
      { alias: "mine", transport: { url: alpha.url } },
    );
    expect(moved.exitCode).toBe(0);
    expect(keysOf(moved.value)).toEqual(
      shape("alias configPath diagnosis environmentId from to tokenWorks unchanged"),
    );
    expect(moved.value).toMatchObject({
      alias: "mine",
      configPath: m.file(kind),
      from: OLD_URL,
      to: alpha.url,
      environmentId: alpha.environmentId,
      unchanged: false,
      tokenWorks: true,
      diagnosis: { ok: true },
    });
    expect((await readJson(m.file(kind))).environments.mine).toEqual({ ...before, url: alpha.url });
    expect(await readFile(m.tokenFile(kind, "mine"), "utf8")).toBe(token);
    const again = await moveCommand(
      { kind, io: m.io().io },
      { alias: "mine", transport: { url: alpha.url } },
    );
    expect(again.value).toMatchObject({ unchanged: true, from: alpha.url });
  });

  it("refuses another machine (environment_mismatch), an unknown alias and a bad address, the file byte-identical", async () => {
    await addedAt(kind, OLD_URL);
    const before = await readFile(m.file(kind), "utf8");
    const move = (alias: string, transport: { url: string } | { ssh: string }) =>
      refusal(moveCommand({ kind, io: m.io().io }, { alias, transport }));
    expect(await move("mine", { url: sim.environment("beta").url })).toMatchObject({
      code: "environment_mismatch",
      message: expect.stringMatching(/different T3 machine.*environments remove mine/),
    });
    expect(await move("gamma", { url: sim.environment("alpha").url })).toMatchObject({
      code: "environment_unknown",
    });
    expect(await move("mine", { url: "not a url" })).toMatchObject({ code: "invalid_input" });
    expect(await move("mine", { ssh: "host:99999" })).toMatchObject({
      message: "--ssh host:99999: the port must be 1-65535",
    });
    expect(await readFile(m.file(kind), "utf8")).toBe(before);
  });

  it("says when the token does not work at the new address (exit 1)", async () => {
    await addedAt(kind, OLD_URL);
    await writeTokenFile(m.tokenFile(kind, "mine"), "a-token-t3-never-issued");
    const alpha = sim.environment("alpha");
    const moved = await moveCommand(
      { kind, io: m.io().io },
      { alias: "mine", transport: { url: alpha.url } },
    );
    expect(moved.exitCode).toBe(1);
    expect(moved.value).toMatchObject({
      tokenWorks: false,
      diagnosis: { ok: false, error: { code: "unauthorized" } },
    });
  });
});

describe.each(KINDS)("pair ($owner config)", (kind) => {
  it("saves a new token of exactly the file's scopes where the file expects it, never echoing the code", async () => {
    await addedAt(kind, sim.environment("alpha").url);
    const old = await readFile(m.tokenFile(kind, "mine"), "utf8");
    const code = codeFor(kind);
    const run = m.io(JSON.stringify({ credential: code }));
    const report = await pairCommand({ kind, io: run.io }, { environment: "mine" });
    expect(report.exitCode).toBe(0);
    expect(keysOf(report.value)).toEqual(
      shape("configPath environment environmentId expiresAt note revoke savedTo scopes"),
    );
    expect(report.value).toMatchObject({
      environment: "mine",
      environmentId: sim.environment("alpha").environmentId,
      configPath: m.file(kind),
      savedTo: m.tokenFile(kind, "mine"),
      scopes: [...kind.scopes].sort(),
      expiresAt: expect.any(String),
    });
    expect(JSON.stringify(report.value) + run.stderr()).not.toContain(code);
    expect(await readFile(m.tokenFile(kind, "mine"), "utf8")).not.toBe(old);
    expect(await modeOf(m.tokenFile(kind, "mine"))).toBe(0o600);
    const check = await diagnoseCommand({ kind, io: m.io().io }, { environment: "mine" });
    expect(check.exitCode).toBe(0);
  });

  it("spends no code on a server answering as another machine, and names the environment by environmentId too", async () => {
    await addedAt(kind, sim.environment("alpha").url);
    const alpha = sim.environment("alpha");
    const code = codeFor(kind);
    alpha.faults.set({ wrongEnvironmentId: "someone-else" });
    try {
      const refused = await refusal(pairCommand({ kind, io: m.io(code).io }, { environment: "mine" }));
      expect(refused).toMatchObject({
        code: "environment_mismatch",
        message: expect.stringContaining("someone-else"),
      });
    } finally {
      alpha.faults.clear();
    }
    const retry = await pairCommand({ kind, io: m.io(code).io }, { environment: alpha.environmentId });
    expect(retry.exitCode).toBe(0);
    expect(await refusal(pairCommand({ kind, io: m.io(code).io }, { environment: "gamma" }))).toMatchObject({
      code: "environment_unknown",
    });
  });

  it("refuses empty input before anything is contacted", async () => {
    await addedAt(kind, sim.environment("alpha").url);
    const refused = await refusal(pairCommand({ kind, io: m.io("   \n").io }, { environment: "mine" }));
    expect(refused.code).toBe("invalid_input");
  });
});

describe.each(KINDS)("diagnose ($owner config)", (kind) => {
  it("reports identity, exact scopes, expiry, projects and threads; --projects lists them", async () => {
    await addedAt(kind, sim.environment("alpha").url);
    const report = await diagnoseCommand({ kind, io: m.io().io }, { projects: true });
    expect(report.exitCode).toBe(0);
    expect(keysOf(report.value)).toEqual(shape("configPath environments ok"));
    const [alpha = {}] = report.value.environments as Array<Record<string, unknown>>;
    const every =
      "alias environmentId inventory name ok projectCount scopes tokenExpiresAt version visibleThreadCount";
    const projects = kind.limitsProjects ? " authorizedProjects missingAllowedProjects" : "";
    expect(keysOf(alpha)).toEqual(shape(every + projects));
    expect(alpha).toMatchObject({ alias: "mine", ok: true, scopes: [...kind.scopes].sort() });
    expect((alpha.inventory as unknown[]).length).toBe(alpha.projectCount);
    expect(alpha.visibleThreadCount).toBeGreaterThan(0);
  });

  it("fails a token of another scope set with scope_mismatch and names the next step", async () => {
    await addedAt(kind, sim.environment("alpha").url);
    const other = kind.owner === "read" ? OPERATE_SCOPES : READ_SCOPES;
    await writeTokenFile(m.tokenFile(kind, "mine"), sim.environment("alpha").issueToken({ scopes: other }));
    const report = await diagnoseCommand({ kind, io: m.io().io });
    expect(report.exitCode).toBe(1);
    expect(report.value).toMatchObject({
      ok: false,
      environments: [{ ok: false, error: { code: "scope_mismatch" } }],
    });
  });

  it("names the next step for a machine that moved, and refuses an unknown environment and an empty file", async () => {
    await addedAt(kind, OLD_URL);
    const lost = await diagnoseCommand({ kind, io: m.io().io });
    expect(lost.exitCode).toBe(1);
    expect(lost.value).toMatchObject({
      environments: [
        {
          alias: "mine",
          ok: false,
          error: {
            code: "unavailable",
            next: expect.stringContaining(`${kind.program} environments move mine --url URL`),
          },
        },
      ],
    });
    expect(await refusal(diagnoseCommand({ kind, io: m.io().io }, { environment: "gamma" }))).toMatchObject({
      code: "environment_unknown",
    });
    await removeCommand({ kind, io: m.io().io }, { alias: "mine" });
    const empty = await refusal(diagnoseCommand({ kind, io: m.io().io }));
    expect(empty).toMatchObject({
      code: "no_environments",
      message: expect.stringContaining(`${kind.program} environments add`),
    });
  });
});

describe("what only the read config has: the projects the read server shows", () => {
  it("refuses project ids the environment does not have, and a choice without a terminal, keeping no token", async () => {
    const beta = sim.environment("beta");
    const io = m.io(codeFor(READ_CONFIG, "beta")).io;
    const unknown = addCommand(
      { kind: READ_CONFIG, io },
      { alias: "b", transport: { url: beta.url }, projects: { ids: ["no-such-project"] } },
    );
    expect(await refusal(unknown)).toMatchObject({
      code: "invalid_input",
      message: expect.stringContaining(
        "--projects names no-such-project, which the environment does not have",
      ),
    });
    expect(await exists(m.tokenFile(READ_CONFIG, "b"))).toBe(false);
    const unchosen = addCommand(
      { kind: READ_CONFIG, io: m.io(codeFor(READ_CONFIG, "beta")).io },
      { alias: "b", transport: { url: beta.url } },
    );
    expect(await refusal(unchosen)).toMatchObject({
      message: expect.stringContaining("give --projects all"),
    });
    expect(await exists(m.file(READ_CONFIG))).toBe(false);
  });

  it("diagnose fails a configured project the environment no longer has", async () => {
    await addedAt(READ_CONFIG, sim.environment("alpha").url);
    const document = await readJson(m.file(READ_CONFIG));
    document.environments.mine.allowedProjects.push("project-that-is-gone");
    await writeJson(m.file(READ_CONFIG), document);
    const report = await diagnoseCommand({ kind: READ_CONFIG, io: m.io().io });
    expect(report.exitCode).toBe(1);
    expect(report.value).toMatchObject({
      environments: [{ ok: false, missingAllowedProjects: ["project-that-is-gone"] }],
    });
  });
});

describe("what only ops.json has: extra names, an expected environmentId, a token path, plain http", () => {
  const addOps = (
    request: Omit<AddEnvironmentRequest, "transport">,
    code: string,
    url = sim.environment("alpha").url,
  ) => addCommand({ kind: OPS_CONFIG, io: m.io(code).io }, { ...request, transport: { url } });

  it("keeps extra names, answers to them, and refuses an alias that is another entry's extra name", async () => {
    expect((await addOps({ alias: "mac", aliases: ["laptop"] }, codeFor(OPS_CONFIG))).exitCode).toBe(0);
    expect((await readJson(m.file(OPS_CONFIG))).environments.mac.aliases).toEqual(["laptop"]);
    const paired = await pairCommand(
      { kind: OPS_CONFIG, io: m.io(codeFor(OPS_CONFIG)).io },
      { environment: "laptop" },
    );
    expect(paired.value).toMatchObject({ environment: "mac" });
    const shadow = await refusal(
      addOps({ alias: "laptop" }, codeFor(OPS_CONFIG, "beta"), sim.environment("beta").url),
    );
    expect(shadow).toMatchObject({
      code: "environment_exists",
      message: expect.stringContaining('"laptop" as another name of "mac"'),
    });
  });

  it("refuses an expected environmentId the server does not announce, before the code is spent; saves where --token-file says", async () => {
    const code = codeFor(OPS_CONFIG);
    expect(await refusal(addOps({ alias: "mac", environmentId: "someone-else" }, code))).toMatchObject({
      code: "environment_mismatch",
      message: expect.stringContaining("not someone-else"),
    });
    const tokenFile = path.join(m.dir, "elsewhere", "mac.token");
    const added = await addOps({ alias: "mac", tokenFile }, code);
    expect(added.value).toMatchObject({ tokenFile });
    expect(await modeOf(tokenFile)).toBe(0o600);
  });

  it("moves an entry allowed plain http to another host to a plain-http address; without the allowance it is refused", async () => {
    // The machine's new name on a network that encrypts by itself; this fetch carries its requests to the simulator.
    const LAN_URL = "http://box.lan:3773";
    const alpha = sim.environment("alpha");
    const toSimulator = (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : input);
      return fetch(`${alpha.url}${url.pathname}${url.search}`, init);
    };
    const before = await addedAt(OPS_CONFIG, OLD_URL);
    const io = { ...m.io().io, fetch: toSimulator as typeof fetch };
    const move = () => moveCommand({ kind: OPS_CONFIG, io }, { alias: "mine", transport: { url: LAN_URL } });
    expect(await refusal(move())).toMatchObject({ code: "invalid_input" });
    const document = await readJson(m.file(OPS_CONFIG));
    document.environments.mine.insecureHttp = true;
    await writeFile(m.file(OPS_CONFIG), JSON.stringify(document), { mode: 0o600 });
    expect((await move()).value).toMatchObject({ to: LAN_URL, tokenWorks: true });
    expect((await readJson(m.file(OPS_CONFIG))).environments.mine).toEqual({
      ...before,
      url: LAN_URL,
      insecureHttp: true,
    });
  });
});

describe("diagnose (read config with allowedProjectRoots)", () => {
  it("counts the projects a folder shows as authorized, and not one there through a symlink out of it", async () => {
    const folders = await realpath(await mkdtemp(path.join(tmpdir(), "t3c-diagnose-roots-")));
    try {
      const root = path.join(folders, "work");
      await mkdir(path.join(root, "made"), { recursive: true });
      await mkdir(path.join(folders, "elsewhere"));
      await symlink(path.join(folders, "elsewhere"), path.join(root, "escape"));
      const alpha = sim.environment("alpha");
      alpha.model.addProject({ id: "diagnose-made", title: "made", workspaceRoot: path.join(root, "made") });
      alpha.model.addProject({
        id: "diagnose-escape",
        title: "escape",
        workspaceRoot: path.join(root, "escape"),
      });
      await addedAt(READ_CONFIG, alpha.url);
      const document = await readJson(m.file(READ_CONFIG));
      document.environments.mine.allowedProjects = undefined;
      document.environments.mine.allowedProjectRoots = [root];
      await writeJson(m.file(READ_CONFIG), document);
      const report = await diagnoseCommand({ kind: READ_CONFIG, io: m.io().io }, {});
      expect(report.value).toMatchObject({
        ok: true,
        environments: [
          {
            alias: "mine",
            authorizedProjects: [{ projectId: "diagnose-made", title: "made" }],
            missingAllowedProjects: [],
          },
        ],
      });
    } finally {
      await rm(folders, { recursive: true, force: true });
    }
  });
});
