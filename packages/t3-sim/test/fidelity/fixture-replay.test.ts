/**
 * Fidelity test: replays every request of the real 0.0.31 capture (fixtures/t3-0.0.31) against
 * a simulator environment playing that build (`compat: "0.0.31"`, run from source like the capture:
 * no web build) over real sockets and compares the answers' shapes.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../src/simulator.js";
import { ALLOWED_DIFFERENCES, allows, SKIPPED_FIXTURES } from "./allowlist.js";
import { loadFixtures } from "./fixtures.js";
import { CaptureReplay } from "./replay.js";

const CAPTURED_ENVIRONMENT_ID = "8a83a2ed-157d-4eaa-96d9-b12040a490d5";
const fixtures = loadFixtures();

describe("the simulator answers the captured requests like the real 0.0.31 server", () => {
  let sim: Simulator | undefined;
  let replay: CaptureReplay | undefined;
  let workspace = "";

  beforeAll(async () => {
    workspace = mkdtempSync(path.join(os.tmpdir(), "t3-sim-fidelity-"));
    sim = await startSimulator({
      environments: [
        {
          alias: "capture",
          environmentId: CAPTURED_ENVIRONMENT_ID,
          seed: "empty",
          compat: "0.0.31",
          webBuild: false,
        },
      ],
    });
    const env = sim.environments[0];
    if (!env) throw new Error("no environment");
    replay = new CaptureReplay(env, fixtures, workspace);
    try {
      await replay.run(new Set(SKIPPED_FIXTURES.keys()));
    } finally {
      await replay.close();
    }
    // Development aid: FIDELITY_DUMP=<file> writes every difference found (listed or not).
    const dump = process.env.FIDELITY_DUMP;
    if (dump) writeFileSync(dump, JSON.stringify(Object.fromEntries(replay.differences), null, 2));
  }, 60_000);

  afterAll(async () => {
    await sim?.close();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });

  const unlisted = (name: string) =>
    (replay?.differences.get(name) ?? [])
      .filter((difference) => !ALLOWED_DIFFERENCES.some((entry) => allows(entry, name, difference.path)))
      .map((difference) => `${difference.path}: ${difference.message}`);

  it("replays every fixture or names why it cannot", () => {
    expect(fixtures.length).toBeGreaterThan(80);
    const missing = fixtures
      .map((fixture) => fixture.name)
      .filter((name) => !SKIPPED_FIXTURES.has(name) && !replay?.differences.has(name));
    expect(missing).toEqual([]);
    for (const name of SKIPPED_FIXTURES.keys())
      expect(fixtures.some((fixture) => fixture.name === name)).toBe(true);
  });

  for (const fixture of fixtures) {
    if (SKIPPED_FIXTURES.has(fixture.name)) continue;
    it(`matches ${fixture.name} up to the listed differences`, () => {
      expect(unlisted(fixture.name)).toEqual([]);
    });
  }

  // Relations between answers that a shape comparison cannot see (README surprises 3, 9, 15).
  const exitValue = (name: string) => {
    const frames = replay?.answers.get(name);
    const exit = Array.isArray(frames)
      ? frames.find(({ frame }) => frame._tag === "Exit")?.frame.exit
      : undefined;
    return (exit as { value?: { sequence?: number } } | undefined)?.value;
  };
  const httpBody = (name: string) => {
    const answer = replay?.answers.get(name);
    return answer && !Array.isArray(answer) ? (answer.body as Record<string, unknown>) : undefined;
  };

  it("answers a replayed commandId with the original sequence, even for a different command", () => {
    const original = exitValue("25-ws-dispatch-thread-pin")?.sequence;
    expect(original).toEqual(expect.any(Number));
    expect(exitValue("31-ws-dispatch-duplicate-commandId-same-payload")?.sequence).toBe(original);
    expect(exitValue("32-ws-dispatch-duplicate-commandId-different-command")?.sequence).toBe(original);
  });

  it("issues 30-day-minus-a-second tokens and refuses reused and unknown codes alike", () => {
    expect(httpBody("05-http-oauth-token-exchange-read-scope")?.expires_in).toBe(2_591_999);
    const { traceId: _a, ...reused } = httpBody("06-http-oauth-token-exchange-reused-code") ?? {};
    const { traceId: _b, ...unknown } = httpBody("06b-http-oauth-token-exchange-unknown-code") ?? {};
    expect(reused).toEqual(unknown);
  });

  it("reports a thread's own latest sequence in its detail, behind the global shell sequence", () => {
    const thread = httpBody("91-http-thread-t6-final")?.snapshotSequence as number;
    const shell = httpBody("90-http-shell-final")?.snapshotSequence as number;
    expect(thread).toBeLessThan(shell);
  });

  it("lists no deliberate difference that no longer occurs", () => {
    const stale = ALLOWED_DIFFERENCES.filter(
      (entry) =>
        !(replay?.differences.get(entry.fixture) ?? []).some((difference) =>
          allows(entry, entry.fixture, difference.path),
        ),
    ).map((entry) => `${entry.fixture} ${entry.path}`);
    expect(stale).toEqual([]);
  });
});
