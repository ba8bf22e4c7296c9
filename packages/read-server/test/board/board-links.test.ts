/**
 * The only links the board opens (ADR 0064), against what a hostile host or a wrong tool result
 * could hand it: facts that are not bare web origins are dropped, a thread's link is built on its
 * environment's T3 origin with its ids as path segments, and an approvalUrl is opened only on
 * the approval origin the facts named.
 */
import { describe, expect, it } from "vitest";
import {
  BOARD_FACTS_META_KEY,
  boardLinksOf,
  checkedApprovalUrl,
  inboxLink,
  threadLink,
  webOrigin,
} from "../../src/board/view/board-links.js";
import { approvalRequest, boardModel } from "../../src/board/view/board-model.js";

const facts = (value: unknown) => boardLinksOf({ [BOARD_FACTS_META_KEY]: value });

describe("the board's links", () => {
  it("keep only bare https origins, or http on this machine's loopback", () => {
    expect(webOrigin("https://t3.example")).toBe("https://t3.example");
    expect(webOrigin("http://127.0.0.1:3773")).toBe("http://127.0.0.1:3773");
    expect(webOrigin("http://localhost:4000")).toBe("http://localhost:4000");
    for (const bad of [
      "http://t3.example",
      "https://t3.example/",
      "https://t3.example/base",
      "https://user:pw@t3.example",
      "javascript:alert(1)",
      "data:text/html,x",
      "file:///etc/passwd",
      "//t3.example",
      "",
      42,
      null,
    ]) {
      expect(webOrigin(bad), String(bad)).toBeUndefined();
    }
  });

  it("drop malformed facts instead of trusting them", () => {
    expect(boardLinksOf(undefined)).toMatchObject({ approvalOrigin: null });
    expect(boardLinksOf({ other: 1 }).t3Origins.size).toBe(0);
    const links = facts({
      approvalOrigin: "javascript:alert(1)",
      t3Origins: { "env-a": "https://a.example", "env-b": "https://b.example/x", "": "https://c.example" },
    });
    expect(links.approvalOrigin).toBeNull();
    expect([...links.t3Origins]).toEqual([["env-a", "https://a.example"]]);
  });

  it("open an inbox item only at /inbox on the inbox origin the facts named (ADR 0073)", () => {
    const links = facts({
      approvalOrigin: null,
      t3Origins: {},
      inboxOrigin: "https://connector.example",
      inboxLinks: {
        "env-a t1": "https://connector.example/inbox#r-abc",
        "env-a t2": "https://evil.example/inbox#r-abc",
        "env-a t3": "https://connector.example/approve#r-abc",
        "env-a t4": "https://user:pw@connector.example/inbox#r-abc",
        "env-a t5": "javascript:alert(1)",
      },
    });
    expect(inboxLink(links, "env-a", "t1")).toBe("https://connector.example/inbox#r-abc");
    for (const thread of ["t2", "t3", "t4", "t5", "t6"])
      expect(inboxLink(links, "env-a", thread)).toBeUndefined();
    // No inbox origin (or one that is not a web origin): no inbox link at all.
    const none = facts({
      inboxOrigin: "javascript:x",
      inboxLinks: { "env-a t1": "https://connector.example/inbox#r" },
    });
    expect(inboxLink(none, "env-a", "t1")).toBeUndefined();
  });

  it("open a thread at T3's /<environmentId>/<threadId>, its ids as path segments", () => {
    const links = facts({ approvalOrigin: null, t3Origins: { "env a/..": "https://a.example" } });
    expect(threadLink(links, "env a/..", "thread/../../evil?x#y")).toBe(
      "https://a.example/env%20a%2F../thread%2F..%2F..%2Fevil%3Fx%23y",
    );
    expect(new URL(threadLink(links, "env a/..", "../../x") ?? "").origin).toBe("https://a.example");
    expect(threadLink(links, "env-unknown", "t1")).toBeUndefined();
  });

  it("open an approvalUrl only on the approval origin", () => {
    const links = facts({ approvalOrigin: "https://connector.example", t3Origins: {} });
    expect(checkedApprovalUrl(links, "https://connector.example/approve?request=r1")).toEqual({
      ok: true,
      url: "https://connector.example/approve?request=r1",
    });
    for (const bad of [
      "https://evil.example/approve?request=r1",
      "https://connector.example.evil.example/approve",
      "http://connector.example/approve",
      "https://user@connector.example/approve",
      "javascript:alert(1)",
      "/approve?request=r1",
      undefined,
    ]) {
      expect(checkedApprovalUrl(links, bad).ok, String(bad)).toBe(false);
    }
    expect(checkedApprovalUrl(facts({}), "https://connector.example/approve").ok).toBe(false);
  });

  it("ask for a lease for the one thread, in its environment, with a short purpose", () => {
    const [row] = boardModel(
      {
        needsIntervention: {
          threads: [
            {
              threadId: "thread-1",
              title: `Deploy\n${"x".repeat(400)}`,
              environment: { alias: "alpha", environmentId: "env-alpha" },
              state: "needs_intervention",
            },
          ],
        },
      },
      undefined,
    ).rows;
    if (row === undefined) throw new Error("no row");
    const request = approvalRequest(row);
    expect(request).toMatchObject({ environments: ["alpha"], threads: ["thread-1"] });
    expect(String(request.purpose)).toMatch(
      /^Answer thread "Deploy x+…" on alpha, asked from the agents board$/,
    );
    expect(String(request.purpose).length).toBeLessThanOrEqual(280);
  });
});
