/**
 * The person's inbox against the simulator over real sockets (ADR 0073): two environments, two
 * agents waiting on approvals, one on a question and one client on a lease, all listed; one
 * assertion approves both approvals and T3 receives exactly one response for each; the same set
 * again sends nothing; the question is answered with one of its options; an approval answered in
 * T3 meanwhile is reported as answered and not sent. And the refusals: no assertion, a replayed
 * one, a forged one, one from another origin, one bound to another set — nothing is answered.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { postJson } from "@t3-connector/test-support/gate-http";
import { INBOX_ENVIRONMENTS, seedInboxWorld } from "@t3-connector/test-support/inbox-world";
import { ENROLLMENT_CODE, type SimGate, startSimGate } from "@t3-connector/test-support/sim-gate";
import { SoftPasskey } from "@t3-connector/test-support/soft-passkey";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

interface Item {
  itemId: string;
  kind: string;
  environment: { alias: string; environmentId: string; machine: string };
  project: { id: string | null; title: string | null };
  thread: { id: string; title: string | null } | null;
  request: {
    type: string;
    requestId: string;
    content?: { type: string; prompt?: string; questions?: { id: string; options: { label: string }[] }[] };
    decisions?: string[];
  };
  runtimeMode: string | null;
  since: string | null;
}
interface Decision {
  environmentId: string;
  threadId: string;
  requestId: string;
  decision: string;
  answers: Record<string, string> | null;
}
interface Outcome {
  itemId: string;
  requestId: string;
  result: string;
  code: string | null;
}

const PAST = Date.now() - 20 * 60_000;
let gate: SimGate;
let passkey: SoftPasskey;

async function post(path: string, body: unknown, origin = gate.origin) {
  return postJson(gate.port, path, body, { origin });
}

async function enroll(soft: SoftPasskey): Promise<void> {
  const started = await post("/api/enrollment/options", { code: ENROLLMENT_CODE, name: "Laptop" });
  expect(started.status).toBe(200);
  const { registrationId, options } = started.body as { registrationId: string; options: never };
  const finished = await post("/api/enrollment/finish", { registrationId, response: soft.create(options) });
  expect(finished.status).toBe(200);
}

async function listItems(): Promise<Item[]> {
  const answer = await post("/inbox/api/items", {});
  expect(answer.status).toBe(200);
  return (answer.body as { items: Item[] }).items;
}

function decisionFor(item: Item, decision: string, answers: Record<string, string> | null = null): Decision {
  if (item.thread === null) throw new Error("not an agent's request");
  return {
    environmentId: item.environment.environmentId,
    threadId: item.thread.id,
    requestId: item.request.requestId,
    decision,
    answers,
  };
}

/** Options, one assertion by `signer`, decide: answers the decide call. */
async function decide(decisions: Decision[], signer: SoftPasskey = passkey) {
  const options = await post("/inbox/api/options", { decisions });
  expect(options.status).toBe(200);
  const { ticketId, options: request } = options.body as { ticketId: string; options: never };
  return post("/inbox/api/decide", { ticketId, decisions, response: signer.get(request) });
}

const auditText = () => readFile(join(gate.stateDir, "audit.log"), "utf8");

function responses(alias: string): { requestId: unknown; decision?: unknown; answers?: unknown }[] {
  return gate.sim
    .environment(alias)
    .model.receivedCommands.filter((command) => command.type === "runtime-request.respond")
    .map((command) => command.payload as { requestId: unknown });
}

beforeEach(async () => {
  gate = await startSimGate({
    environments: INBOX_ENVIRONMENTS,
    serve: true,
    inbox: true,
  });
  await seedInboxWorld(gate, PAST);
  passkey = new SoftPasskey(gate.origin);
  await enroll(passkey);
});

afterEach(async () => {
  await gate.close();
});

describe("the inbox on the simulator", () => {
  it("lists both approvals, the question and the lease request, oldest first, with what a person decides on", async () => {
    const items = await listItems();
    expect(items.map((item) => item.kind).sort()).toEqual(["approval", "approval", "lease", "question"]);
    const agents = items.filter((item) => item.kind !== "lease");
    expect(agents.map((item) => item.thread?.id)).toEqual(["t-deploy", "t-tests", "t-scope"]);
    const deploy = agents[0] as Item;
    expect(deploy.environment).toMatchObject({ alias: "alpha" });
    expect(deploy.project).toEqual({ id: "p-api", title: "API" });
    expect(deploy.request.content?.type).toBe("approval");
    expect(deploy.request.content?.prompt).toEqual(expect.any(String));
    expect(deploy.request.decisions).toContain("accept");
    const question = agents[2] as Item;
    expect(question.request.content?.questions?.[0]?.options.length).toBeGreaterThan(0);
    // Ids are opaque and stable: the same listing again gives the same ids.
    expect((await listItems()).map((item) => item.itemId).sort()).toEqual(
      items.map((item) => item.itemId).sort(),
    );
  });

  it("approves both approvals with one assertion, sends each once, and sends nothing for the same set again", async () => {
    const items = await listItems();
    const approvals = items.filter((item) => item.kind === "approval");
    const set = approvals.map((item) => decisionFor(item, "accept"));
    const decided = await decide(set);
    expect(decided.status).toBe(200);
    const outcomes = (decided.body as { outcomes: Outcome[] }).outcomes;
    expect(outcomes.map((outcome) => outcome.result)).toEqual(["sent", "sent"]);
    expect(responses("alpha")).toHaveLength(1);
    expect(responses("beta")).toHaveLength(1);
    expect(responses("alpha")[0]).toMatchObject({ requestId: set[0]?.requestId, decision: "accept" });

    const again = await decide(set);
    expect(again.status).toBe(200);
    for (const outcome of (again.body as { outcomes: Outcome[] }).outcomes) {
      expect(outcome.result).not.toBe("sent");
    }
    expect(responses("alpha")).toHaveLength(1);
    expect(responses("beta")).toHaveLength(1);
    // Audited, one line per decision (appended as each ends), with its result and no answer text.
    await expect.poll(async () => (await auditText()).match(/"event":"inbox_decision"/g)?.length).toBe(4);
    expect(await auditText()).toContain('"result":"sent"');
    // Answered items leave the inbox.
    expect((await listItems()).filter((item) => item.kind === "approval")).toHaveLength(0);
  });

  it("answers the question with one of its options", async () => {
    const question = (await listItems()).find((item) => item.kind === "question") as Item;
    const asked = question.request.content?.questions?.[0];
    if (asked === undefined) throw new Error("no question");
    const label = asked.options[0]?.label as string;
    const decided = await decide([decisionFor(question, "answer", { [asked.id]: label })]);
    expect((decided.body as { outcomes: Outcome[] }).outcomes[0]?.result).toBe("sent");
    expect(responses("beta")).toEqual([expect.objectContaining({ answers: { [asked.id]: label } })]);
  });

  it("refuses an answer outside the question's options when it takes no free text, and sends nothing", async () => {
    const question = (await listItems()).find((item) => item.kind === "question") as Item;
    const asked = question.request.content?.questions?.[0];
    if (asked === undefined) throw new Error("no question");
    const decided = await decide([decisionFor(question, "answer", { "not-a-question": "x" })]);
    expect((decided.body as { outcomes: Outcome[] }).outcomes[0]).toMatchObject({
      result: "refused",
      code: "answer_invalid",
    });
    expect(responses("beta")).toHaveLength(0);
  });

  it("reports an approval answered in T3 meanwhile as already answered, and sends nothing", async () => {
    const deploy = (await listItems()).find((item) => item.thread?.id === "t-deploy") as Item;
    const alpha = gate.sim.environment("alpha").model;
    const inT3 = await alpha.callUnary("orchestration.dispatchCommand", {
      commandId: "answered-in-t3",
      type: "runtime-request.respond",
      threadId: "t-deploy",
      requestId: deploy.request.requestId,
      decision: "decline",
    });
    expect(inT3.kind).not.toBe("fail");
    const decided = await decide([decisionFor(deploy, "accept")]);
    expect((decided.body as { outcomes: Outcome[] }).outcomes[0]?.result).toBe("already_answered");
    expect(responses("alpha")).toHaveLength(1);
  });
});

describe("nothing is answered without the person's assertion over exactly that set", () => {
  it("refuses a decide call with no ticket, a replayed assertion, a forged one, and one bound to another set", async () => {
    const items = await listItems();
    const [first, second] = items.filter((item) => item.kind === "approval") as [Item, Item];
    const one = [decisionFor(first, "accept")];
    const other = [decisionFor(second, "accept")];

    const noTicket = await post("/inbox/api/decide", {
      ticketId: "made-up",
      decisions: one,
      response: { id: "x", type: "public-key" },
    });
    expect(noTicket.body).toEqual({ error: "challenge_invalid" });

    // Bound to `one`, presented with `other`.
    const asked = await post("/inbox/api/options", { decisions: one });
    const { ticketId, options } = asked.body as { ticketId: string; options: never };
    const swapped = await post("/inbox/api/decide", {
      ticketId,
      decisions: other,
      response: passkey.get(options),
    });
    expect(swapped.body).toEqual({ error: "selection_invalid" });
    // The ticket was used up by that attempt: the right set with it now is refused too.
    const replayed = await post("/inbox/api/decide", {
      ticketId,
      decisions: one,
      response: passkey.get(options),
    });
    expect(replayed.body).toEqual({ error: "challenge_invalid" });

    // Signed by a key the gate never enrolled.
    const stranger = new SoftPasskey(gate.origin);
    const forged = await decide(one, stranger);
    expect(forged.body).toEqual({ error: "credential_unknown" });

    // Made for another origin.
    const elsewhere = new SoftPasskey("http://localhost:1");
    const foreign = await decide(one, elsewhere);
    expect(foreign.status).not.toBe(200);

    // A replay of a good assertion under a fresh ticket: its challenge is not that ticket's.
    const fresh = await post("/inbox/api/options", { decisions: one });
    const good = passkey.get((fresh.body as { options: never }).options);
    const later = await post("/inbox/api/options", { decisions: one });
    const replay = await post("/inbox/api/decide", {
      ticketId: (later.body as { ticketId: string }).ticketId,
      decisions: one,
      response: good,
    });
    expect(replay.status).not.toBe(200);

    expect(responses("alpha")).toHaveLength(0);
    expect(responses("beta")).toHaveLength(0);
    await expect.poll(async () => (await auditText()).match(/"event":"inbox_refused"/g)?.length).toBe(4);
    expect(await auditText()).not.toContain('"event":"inbox_decision"');
  });

  it("refuses calls from another origin before reading anything", async () => {
    const answer = await post("/inbox/api/items", {}, "https://evil.example");
    expect(answer.status).toBe(403);
    const options = await post(
      "/inbox/api/options",
      {
        decisions: [{ environmentId: "e", threadId: "t", requestId: "r", decision: "accept", answers: null }],
      },
      "https://evil.example",
    );
    expect(options.status).toBe(403);
  });
});
