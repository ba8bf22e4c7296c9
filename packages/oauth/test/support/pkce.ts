/** An authorization request as a client builds one: PKCE S256, `state`, `resource`. */
import { createHash, randomBytes } from "node:crypto";

export interface AuthorizeRequest {
  readonly url: URL;
  readonly verifier: string;
  readonly state: string;
}

export function authorizeRequest(
  base: string,
  options: { clientId: string; redirectUri: string; resource: string; scope?: string; path?: string },
): AuthorizeRequest {
  const verifier = randomBytes(32).toString("base64url");
  const state = randomBytes(12).toString("base64url");
  const url = new URL(`${base}${options.path ?? "/authorize"}`);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", options.clientId);
  url.searchParams.set("redirect_uri", options.redirectUri);
  url.searchParams.set("code_challenge", createHash("sha256").update(verifier).digest("base64url"));
  url.searchParams.set("code_challenge_method", "S256");
  url.searchParams.set("state", state);
  url.searchParams.set("resource", options.resource);
  if (options.scope !== undefined) url.searchParams.set("scope", options.scope);
  return { url, verifier, state };
}

/** `POST {tokenUrl}` with a form body; answers the status and the JSON. */
export async function postForm(
  tokenUrl: string,
  params: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(tokenUrl, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(params),
  });
  return {
    status: response.status,
    body: (await response.json().catch(() => ({}))) as Record<string, unknown>,
  };
}

/** A stateless `tools/list` over Streamable HTTP with a bearer token: answers the status. */
export async function mcpToolsList(mcpUrl: string, accessToken: string | undefined): Promise<number> {
  const response = await fetch(mcpUrl, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...(accessToken === undefined ? {} : { Authorization: `Bearer ${accessToken}` }),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  await response.body?.cancel();
  return response.status;
}
