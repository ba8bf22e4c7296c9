/**
 * The only links the board ever asks the host to open (`ui/open-link`), and the checks they
 * pass. The allowed origins come from the read server's facts on the control plane's result
 * (`_meta["t3-connector/board"]`, ADR 0064): T3's own web app per environment, and the gate's
 * approval page for a session that may ask for a lease. A link anywhere else — an `approvalUrl` a
 * tool result puts on another origin, a `javascript:` origin, a path where an origin belongs — is
 * refused. Pure and DOM-free, like the model.
 */

export const BOARD_FACTS_META_KEY = "t3-connector/board";

export interface BoardLinks {
  /** The gate's approval origin when this session's server serves `t3_pedir_aprovacao`. */
  readonly approvalOrigin: string | null;
  /** environmentId → the origin of that environment's T3 web app, where one is known. */
  readonly t3Origins: ReadonlyMap<string, string>;
  /** `<environmentId> <threadId>` → its inbox item, each checked to lie on the inbox origin (ADR 0073). */
  readonly inboxLinks: ReadonlyMap<string, string>;
}

export const NO_LINKS: BoardLinks = Object.freeze({
  approvalOrigin: null,
  t3Origins: new Map(),
  inboxLinks: new Map(),
});

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/**
 * `value` when it is exactly a web origin the board may link to: https anywhere, plain http only
 * on this machine's loopback names (as T3 base URLs and the gate's localhost page are).
 */
export function webOrigin(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.origin !== value) return undefined;
  if (url.protocol === "https:") return url.origin;
  if (url.protocol === "http:" && LOOPBACK.test(url.hostname)) return url.origin;
  return undefined;
}

/** The facts from a control plane result's `_meta`; anything malformed is dropped, never trusted. */
export function boardLinksOf(meta: unknown): BoardLinks {
  const facts = isObject(meta) ? meta[BOARD_FACTS_META_KEY] : undefined;
  if (!isObject(facts)) return NO_LINKS;
  const t3Origins = new Map<string, string>();
  if (isObject(facts.t3Origins)) {
    for (const [environmentId, value] of Object.entries(facts.t3Origins)) {
      const origin = webOrigin(value);
      if (origin !== undefined && environmentId !== "") t3Origins.set(environmentId, origin);
    }
  }
  const inboxLinks = new Map<string, string>();
  const inboxOrigin = webOrigin(facts.inboxOrigin);
  if (inboxOrigin !== undefined && isObject(facts.inboxLinks)) {
    for (const [key, value] of Object.entries(facts.inboxLinks)) {
      const url = onOrigin(value, inboxOrigin, "/inbox");
      if (url !== undefined) inboxLinks.set(key, url);
    }
  }
  return { approvalOrigin: webOrigin(facts.approvalOrigin) ?? null, t3Origins, inboxLinks };
}

/** `value` when it is a URL on exactly `origin` at `path` (no credentials), else undefined. */
function onOrigin(value: unknown, origin: string, path: string): string | undefined {
  if (typeof value !== "string") return undefined;
  try {
    const url = new URL(value);
    if (url.origin !== origin || url.pathname !== path || url.username !== "" || url.password !== "")
      return undefined;
    return url.href;
  } catch {
    return undefined;
  }
}

/** The person's inbox item of a waiting thread, on the inbox origin only, where one is known. */
export function inboxLink(links: BoardLinks, environmentId: string, threadId: string): string | undefined {
  return links.inboxLinks.get(`${environmentId} ${threadId}`);
}

/** T3's own page for a thread (its web app's `/<environmentId>/<threadId>`), where the origin is known. */
export function threadLink(links: BoardLinks, environmentId: string, threadId: string): string | undefined {
  const origin = links.t3Origins.get(environmentId);
  if (origin === undefined || threadId === "") return undefined;
  return `${origin}/${encodeURIComponent(environmentId)}/${encodeURIComponent(threadId)}`;
}

export type CheckedLink = { ok: true; url: string } | { ok: false; reason: string };

/** An `approvalUrl` from the write tool's result, opened only on the approval origin. */
export function checkedApprovalUrl(links: BoardLinks, value: unknown): CheckedLink {
  if (links.approvalOrigin === null) return { ok: false, reason: "this session has no approval page" };
  if (typeof value !== "string") return { ok: false, reason: "the answer carried no approval link" };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, reason: "the approval link is not a URL" };
  }
  if (url.origin !== links.approvalOrigin || url.username !== "" || url.password !== "") {
    return {
      ok: false,
      reason: `the approval link is not on the approval page's origin ${links.approvalOrigin}`,
    };
  }
  return { ok: true, url: url.href };
}
