/**
 * A lease limited to the threads the client named (ADR 0041), as the verdict decides it: a write
 * touching a named thread passes, one touching any other thread of the same project is refused
 * `scope_denied` naming that thread, a thread the lease launched itself passes, and a grant with
 * no thread list (the person widened it to whole projects) admits every thread of its projects.
 */
import { describe, expect, it } from "vitest";
import { SAMPLE_IDS } from "../../src/actions/index.js";
import { scopeVerdict } from "../../src/dispatch/index.js";
import type { LeaseRequest } from "../../src/dispatch/types.js";
import { leaseScope } from "./support/harness.js";

const ENV = "env-thread-limited";
const NAMED = "thread-named";
const OTHER = "thread-not-named";
const LAUNCHED = "thread-launched-by-the-lease";

const wholeProject = leaseScope([{ alias: "alpha", environmentId: ENV }]);
const limited = {
  ...wholeProject,
  environments: wholeProject.environments.map((grant) => ({ ...grant, threadIds: [NAMED] })),
};

const pin = (threadId: string): LeaseRequest => ({
  stage: "scope",
  environmentId: ENV,
  destination: `t3://${ENV}`,
  action: "thread.pin",
  projectIds: [SAMPLE_IDS.projectId],
  threadIds: [threadId],
});

describe("a lease limited to the threads the client named", () => {
  it("admits the named thread and refuses another thread of the same project, naming it", () => {
    expect(scopeVerdict(limited, pin(NAMED))).toMatchObject({ ok: true });
    const refused = scopeVerdict(limited, pin(OTHER));
    expect(refused).toMatchObject({ ok: false, code: "scope_denied" });
    expect(refused.ok ? "" : refused.message).toContain(
      `thread ${OTHER} is not one the lease was approved for`,
    );
  });

  it("admits a thread the lease launched itself, and a launch, which touches no existing thread", () => {
    expect(scopeVerdict(limited, pin(LAUNCHED), new Set([LAUNCHED]))).toMatchObject({ ok: true });
    const launch = { ...pin(NAMED), action: "thread.launch" as const, threadIds: [] };
    expect(scopeVerdict(limited, launch)).toMatchObject({ ok: true });
  });

  it("admits every thread of the project once the person widened it (no thread list)", () => {
    expect(scopeVerdict(wholeProject, pin(OTHER))).toMatchObject({ ok: true });
  });
});
