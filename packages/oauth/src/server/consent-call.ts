/**
 * `POST /oauth/consent`: the owner's click. Deny sends the client `access_denied`; approve (only
 * after a passkey sign-in) issues a one-time authorization code. Either way the transaction closes.
 */
import { ConnectorError } from "@t3-connector/core";
import { WRITE_SCOPE } from "../settings/index.js";
import { callbackUrl } from "./authorize-request.js";
import type { PostPageCall } from "./page-call.js";
import type { PageRouteParts } from "./page-route-parts.js";

export function mountConsent(post: PostPageCall, parts: PageRouteParts): void {
  const { settings } = parts;
  post("/oauth/consent", async (c, { transaction, body }) => {
    const { request } = transaction;
    if (body.decision === "deny") {
      parts.transactions.close(transaction.id);
      parts.log(`oauth: sign-in for ${JSON.stringify(request.client.clientName)} denied`);
      const redirect = callbackUrl(request.redirectUri, settings, {
        error: "access_denied",
        error_description: "the owner denied this client",
        state: request.state,
      });
      return c.json({ redirect });
    }
    if (body.decision !== "approve")
      throw new ConnectorError("invalid_request", "decision is approve or deny");
    if (transaction.signedInWith === undefined) {
      throw new ConnectorError("access_denied", "sign in with your passkey before allowing a client");
    }
    parts.transactions.close(transaction.id);
    const scope = grantedScope(request.scope, body.allowWrite === true);
    const code = parts.codes.issue({
      clientId: request.client.clientId,
      clientName: request.client.clientName,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      scope,
      resource: request.resource,
      credentialId: transaction.signedInWith,
      issuedAt: parts.clock.now(),
    });
    parts.log(
      `oauth: ${JSON.stringify(request.client.clientName)} allowed ${scope.join(" ")} (redirect host ${new URL(request.redirectUri).host})`,
    );
    return c.json({ redirect: callbackUrl(request.redirectUri, settings, { code, state: request.state }) });
  });
}

/** The write scope only when it was asked for and its box was left ticked: what the page showed. */
function grantedScope(asked: readonly string[], allowWrite: boolean): string[] {
  return asked.filter((scope) => scope !== WRITE_SCOPE || allowWrite);
}
