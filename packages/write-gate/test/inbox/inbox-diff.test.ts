/**
 * A thread's diff from the inbox over real sockets (ADR 0068, "The person's diff page"): on
 * localhost the gate's page reads it at once; from afar only inside a passkey view session, and
 * a link alone (no session, a forged token, another client's token) gets a refusal that carries
 * nothing of the diff; a foreign Origin is refused; an unknown thread or environment answers a
 * clear error; a path in the request is not a field the route takes.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FORWARD_CAPABILITY_HEADER, FORWARDED_CLIENT_HEADER } from "@t3-connector/core/http-edge";
import { postJson } from "@t3-connector/test-support/gate-http";
import { INBOX_ENVIRONMENTS, LONG_LINE, seedDiffThread } from "@t3-connector/test-support/inbox-world";
import { type SimGate, startSimGate } from "@t3-connector/test-support/sim-gate";
import { SoftPasskey } from "@t3-connector/test-support/soft-passkey";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { generateCapability } from "../../src/relay/capability.js";

const ORIGIN = "https://t3.example";
const OWNER = "198.51.100.7";
const STRANGER = "203.0.113.9";
const PAST = Date.now() - 20 * 60_000;

interface DiffAnswer {
  files: { path: string; additions: number; patch: string }[];
  totals: { files: number; additions: number };
  thread: { id: string };
}

let gate: SimGate;
let oauthDir: string;
let capability: string;
let phone: SoftPasskey;
let environmentId: string;
let threadId: string;

function fromAfar(address: string, path: string, body: unknown, origin = ORIGIN) {
  return postJson(gate.port, path, body, {
    origin,
    [FORWARD_CAPABILITY_HEADER]: capability,
    [FORWARDED_CLIENT_HEADER]: address,
  });
}

async function viewSession(address: string): Promise<string> {
  const started = await fromAfar(address, "/inbox/api/unlock/options", {});
  expect(started.status).toBe(200);
  const { ticketId, options } = started.body as { ticketId: string; options: never };
  const opened = await fromAfar(address, "/inbox/api/unlock", { ticketId, response: phone.get(options) });
  expect(opened.status).toBe(200);
  return (opened.body as { viewToken: string }).viewToken;
}

/** Nothing of the diff in a refusal: no path, no line of the patch. */
function expectNothingOfTheDiff(body: unknown): void {
  const text = JSON.stringify(body);
  expect(text).not.toContain("config.ts");
  expect(text).not.toContain("a-very-long-value");
  expect(text).not.toContain("@@");
}

beforeEach(async () => {
  oauthDir = await mkdtemp(join(tmpdir(), "t3c-inbox-diff-"));
  phone = new SoftPasskey(ORIGIN);
  await writeFile(
    join(oauthDir, "passkeys.json"),
    JSON.stringify({ version: 1, credentials: [phone.storedCredential()] }),
    { mode: 0o600 },
  );
  capability = generateCapability();
  gate = await startSimGate({
    environments: INBOX_ENVIRONMENTS,
    serve: true,
    inbox: true,
    remoteApproval: { origin: ORIGIN, oauthStateDir: oauthDir, relayCapability: capability },
  });
  threadId = await seedDiffThread(gate, PAST);
  const listed = await postJson(gate.port, "/inbox/api/items", {}, { origin: gate.origin });
  const items = (
    listed.body as { items: { thread: { id: string } | null; environment: { environmentId: string } }[] }
  ).items;
  const item = items.find((candidate) => candidate.thread?.id === threadId);
  if (item === undefined) throw new Error("the edited thread is not in the inbox");
  environmentId = item.environment.environmentId;
});

afterEach(async () => {
  await gate.close();
  await rm(oauthDir, { recursive: true, force: true });
});

describe("a thread's diff from the inbox", () => {
  it("shows on the gate's own localhost page: the files, each patch with its hunks", async () => {
    const answer = await postJson(
      gate.port,
      "/inbox/api/diff",
      { environmentId, threadId },
      { origin: gate.origin },
    );
    expect(answer.body).toMatchObject({ thread: { id: threadId } });
    expect(answer.status).toBe(200);
    const diff = answer.body as DiffAnswer;
    expect(diff.thread.id).toBe(threadId);
    const config = diff.files.find((file) => file.path === "src/config.ts");
    expect(config?.additions).toBeGreaterThan(0);
    expect(config?.patch).toContain("@@");
    expect(config?.patch).toContain(LONG_LINE);
  });

  it("from afar, shows only inside a passkey view session of the same client", async () => {
    const bare = await fromAfar(OWNER, "/inbox/api/diff", { environmentId, threadId });
    expect(bare.status).toBe(401);
    expect(bare.body).toEqual({ error: "unlock_required" });
    expectNothingOfTheDiff(bare.body);

    const forged = await fromAfar(OWNER, "/inbox/api/diff", { environmentId, threadId, viewToken: "forged" });
    expect(forged.status).toBe(401);
    expectNothingOfTheDiff(forged.body);

    const token = await viewSession(OWNER);
    // The owner's token, replayed by another client, is not a session there.
    const stolen = await fromAfar(STRANGER, "/inbox/api/diff", { environmentId, threadId, viewToken: token });
    expect(stolen.status).toBe(401);
    expectNothingOfTheDiff(stolen.body);

    const shown = await fromAfar(OWNER, "/inbox/api/diff", { environmentId, threadId, viewToken: token });
    expect(shown.status).toBe(200);
    expect((shown.body as DiffAnswer).files.map((file) => file.path)).toContain("src/config.ts");
  });

  it("refuses a foreign Origin, on the gate's port and through the forwarder, with nothing of the diff", async () => {
    const local = await postJson(
      gate.port,
      "/inbox/api/diff",
      { environmentId, threadId },
      { origin: "https://evil.example" },
    );
    expect(local.status).toBe(403);
    expectNothingOfTheDiff(local.body);
    const token = await viewSession(OWNER);
    const forwarded = await fromAfar(
      OWNER,
      "/inbox/api/diff",
      { environmentId, threadId, viewToken: token },
      "https://evil.example",
    );
    expect(forwarded.status).toBe(403);
    expectNothingOfTheDiff(forwarded.body);
  });

  it("answers an unknown thread or environment with a clear error, and takes no path", async () => {
    const origin = { origin: gate.origin };
    const noThread = await postJson(
      gate.port,
      "/inbox/api/diff",
      { environmentId, threadId: "t-none" },
      origin,
    );
    expect(noThread.status).toBe(404);
    expect(noThread.body).toEqual({ error: "thread_not_found" });
    const noEnvironment = await postJson(
      gate.port,
      "/inbox/api/diff",
      { environmentId: "alpha", threadId },
      origin,
    );
    expect(noEnvironment.status).toBe(404);
    expect(noEnvironment.body).toEqual({ error: "environment_unknown" });
    const withPath = await postJson(
      gate.port,
      "/inbox/api/diff",
      { environmentId, threadId, path: "/etc/passwd" },
      origin,
    );
    expect(withPath.status).toBe(400);
    expectNothingOfTheDiff(withPath.body);
  });

  it("reads the whole thread, and pages only by a cursor of the range it pages", async () => {
    const origin = { origin: gate.origin };
    const read = (extra: Record<string, unknown>) =>
      postJson(gate.port, "/inbox/api/diff", { environmentId, threadId, ...extra }, origin);
    const run = (await read({})).body as DiffAnswer & { scope: string };
    const whole = await read({ scope: "thread" });
    expect(whole.status).toBe(200);
    expect(whole.body).toMatchObject({ scope: "thread" });
    expect((whole.body as DiffAnswer).totals.files).toBeGreaterThanOrEqual(run.totals.files);

    // The run's diff is runs 1 to 2 (the second run made the edits): a cursor of that range pages it.
    const rest = await read({ cursor: "run:1-2:1" });
    expect(rest.status).toBe(200);
    expect((rest.body as DiffAnswer).files.map((file) => file.path)).toEqual(
      run.files.slice(1).map((file) => file.path),
    );
    // Another range's cursor, or another scope's, is refused with nothing of the diff.
    for (const cursor of ["run:0-1:1", "thread:1-2:1"]) {
      const refused = await read({ cursor });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ error: "invalid_cursor" });
    }
    // A cursor is not a place to put a path: anything but its own shape is refused before a read.
    const pathLike = await read({ cursor: "../../etc/passwd" });
    expect(pathLike.status).toBe(400);
    expect(pathLike.body).toEqual({ error: "body_invalid" });
    expectNothingOfTheDiff(pathLike.body);
  });
});
