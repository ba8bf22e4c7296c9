import { describe, expect, it } from "vitest";
import { parseCliArgs } from "../../src/cli/args.js";

describe("t3-connector events command line", () => {
  it.each([
    [
      ["events", "--hook-url", "http://127.0.0.1:9/hook", "--hook-secret-file", "s"],
      { kind: "events", request: { hookUrl: "http://127.0.0.1:9/hook", hookSecretFile: "s", filters: {} } },
    ],
    [
      [
        "events",
        "--hook-url=https://h/x",
        "--hook-secret-file",
        "s",
        "--state-dir",
        "/tmp/d",
        "--environment",
        "alpha,beta",
        "--project",
        "p1",
        "--type",
        "run.failed,thread.needs_input",
        "--max-attempts",
        "3",
        "--max-age-hours",
        "2",
        "--retry-base-ms",
        "50",
      ],
      {
        kind: "events",
        request: {
          hookUrl: "https://h/x",
          hookSecretFile: "s",
          stateDir: "/tmp/d",
          filters: {
            environments: ["alpha", "beta"],
            projects: ["p1"],
            types: ["run.failed", "thread.needs_input"],
          },
          maxAttempts: 3,
          maxAgeMs: 7_200_000,
          retryBaseMs: 50,
        },
      },
    ],
    [["events", "--grace-seconds", "0"], { kind: "events", request: { filters: {}, graceMs: 0 } }],
    [["events", "--grace-seconds", "2.5"], { kind: "events", request: { filters: {}, graceMs: 2_500 } }],
    // The hook URL and secret may come from the config's events section: the parser does not ask.
    [["events"], { kind: "events", request: { filters: {} } }],
    [["events", "status"], { kind: "events-status" }],
    [["events", "status", "--state-dir", "/tmp/d"], { kind: "events-status", stateDir: "/tmp/d" }],
    [["events", "retry", "msg_1"], { kind: "events-retry", id: "msg_1" }],
  ])("parses %j", (argv, expected) => {
    expect(parseCliArgs(argv)).toEqual(expected);
  });

  it.each([
    [["events", "--hook-url", "http://h", "--hook-secret-file", "s", "--type", "run.done"], "--type takes"],
    [["events", "--hook-url", "http://h", "--hook-secret-file", "s", "--max-attempts", "0"], "positive"],
    [["events", "--hook-url", "a", "--hook-url", "b", "--hook-secret-file", "s"], "given twice"],
    [["events", "retry"], "needs the id"],
    [["events", "--grace-seconds", "3601"], "from 0 to 3600"],
    [["events", "--grace-seconds", "soon"], "from 0 to 3600"],
  ])("refuses %j as a usage error", (argv, problem) => {
    const parsed = parseCliArgs(argv);
    expect(parsed.kind).toBe("usage-error");
    expect(parsed.kind === "usage-error" ? parsed.problem : "").toContain(problem);
  });
});
