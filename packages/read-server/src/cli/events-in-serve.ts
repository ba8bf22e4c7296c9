/**
 * `serve --http` runs the events follower inside when the read config has an `events` section:
 * it shares the server's connections and shell mirrors, starts once the server listens and stops
 * after the calls in flight were answered. The stdio server never does: its life is one client's
 * session, and webhooks must not stop when a chat closes.
 */

import type { CliIo } from "@t3-connector/core/cli-support";
import { eventsBackgroundService } from "@t3-connector/events";
import type { BackgroundService, BackgroundServices } from "../http/background-service.js";
import { serviceOptions } from "./events.js";
import { resolveEventsRequest } from "./events-request.js";

export function eventsFromConfig(io: CliIo): BackgroundServices {
  return (context) => {
    if (context.config.events === undefined) return [];
    // Checked now, so a bad section stops start-up with the field it names.
    const request = resolveEventsRequest({ filters: {} }, context.config);
    let inner: BackgroundService | undefined;
    return [
      {
        name: "events",
        async start() {
          const options = await serviceOptions(io, request);
          inner = eventsBackgroundService(options, context);
          await inner.start();
          options.log(
            `events: delivering to ${new URL(options.hookUrl).origin}; state in ${options.stateDir}`,
          );
        },
        async stop() {
          await inner?.stop();
        },
      },
    ];
  };
}
