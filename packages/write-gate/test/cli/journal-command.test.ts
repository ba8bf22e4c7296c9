import * as nodeFs from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli.js";
import { parseCliArgs } from "../../src/process/cli-args.js";

describe("t3-connector-write journal: command line", () => {
  it.each([
    [["journal", "verify"], { kind: "journal-verify", json: false }],
    [["journal", "verify", "--json"], { kind: "journal-verify", json: true }],
    [["journal", "recover", "--accept-loss"], { kind: "journal-recover", json: false }],
    [["journal", "recover", "--json", "--accept-loss"], { kind: "journal-recover", json: true }],
    [["journal", "accept-unknown-loss", "--checked-t3"], { kind: "journal-lift", json: false }],
  ])("reads %j", (argv, expected) => {
    expect(parseCliArgs(argv)).toEqual(expected);
  });

  it.each([
    [["journal"], "journal verify [--json], journal recover --accept-loss"],
    [["journal", "recover"], "it needs --accept-loss"],
    [["journal", "accept-unknown-loss"], "confirm with --checked-t3"],
    [["journal", "verify", "--force"], "unknown command or argument: --force"],
  ])("refuses %j as a usage error", (argv, problem) => {
    const parsed = parseCliArgs(argv);
    expect(parsed.kind).toBe("usage-error");
    expect(parsed.kind === "usage-error" ? parsed.problem : "").toContain(problem);
  });
});

describe("t3-connector-write journal verify on a state directory without a journal", () => {
  let root: string;
  beforeEach(async () => {
    root = await nodeFs.mkdtemp(join(tmpdir(), "t3c-journal-cli-"));
  });
  afterEach(async () => {
    await nodeFs.rm(root, { recursive: true, force: true });
  });

  it("says there is no journal yet, exits 0, and creates none", async () => {
    const stateDir = join(root, "state");
    const configPath = join(root, "write.json");
    await nodeFs.writeFile(
      configPath,
      JSON.stringify({
        port: 4999,
        stateDir,
        // Never contacted: the journal commands read only the state directory.
        environments: {
          alpha: { environmentId: "env-alpha", url: "http://127.0.0.1:9", tokenFile: join(root, "token") },
        },
      }),
    );
    const out: string[] = [];
    const code = await runCli(["journal", "verify", "--json"], {
      stdout: { write: (text: string) => out.push(text) },
      stderr: { write: (text: string) => out.push(text) },
      env: { T3_CONNECTOR_WRITE_CONFIG: configPath },
    });
    expect(code).toBe(0);
    expect(JSON.parse(out.join(""))).toMatchObject({ status: "fresh", findings: [] });
    expect(await nodeFs.readdir(stateDir)).not.toContain("journal-identity.json");
  });
});
