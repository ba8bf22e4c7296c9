import { ConnectorError } from "@t3-connector/core";
import { Webhook } from "standardwebhooks";

/**
 * Standard Webhooks signing through the `standardwebhooks` package (the reference implementation,
 * so a receiver using any Standard Webhooks library verifies what this sends): `webhook-signature`
 * is `v1,` + base64 HMAC-SHA256 of `<id>.<timestamp>.<body>` keyed by the base64 secret after
 * `whsec_`.
 */
export interface WebhookSigner {
  headers(id: string, at: Date, body: string): Record<string, string>;
}

const SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]+={0,2}$/;

export function createSigner(secret: string): WebhookSigner {
  const trimmed = secret.trim();
  if (!SECRET_PATTERN.test(trimmed)) {
    throw new ConnectorError(
      "config_invalid",
      "the hook secret must be a Standard Webhooks secret: whsec_ followed by base64 (at least 24 bytes)",
    );
  }
  const key = Buffer.from(trimmed.slice("whsec_".length), "base64");
  if (key.length < 24) {
    throw new ConnectorError("config_invalid", "the hook secret is too short: use at least 24 random bytes");
  }
  const webhook = new Webhook(trimmed);
  return {
    headers(id, at, body) {
      return {
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
        "webhook-signature": webhook.sign(id, at, body),
      };
    },
  };
}
