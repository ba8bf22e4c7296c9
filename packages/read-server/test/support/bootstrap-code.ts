/**
 * Exchanges a pairing (bootstrap) code for a read token at the simulated environment, as T3's own
 * token endpoint is asked: a code that was never exchanged is answered 200, a spent one is not.
 */
export function exchangeBootstrapCode(environmentUrl: string, code: string): Promise<Response> {
  return fetch(`${environmentUrl}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      subject_token: code,
      subject_token_type: "urn:t3:params:oauth:token-type:environment-bootstrap",
      scope: "orchestration:read",
    }).toString(),
  });
}
