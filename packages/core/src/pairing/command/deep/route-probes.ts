/** The HTTP routes the connector reads, and how each answers (ADR 0069). */
import { isConnectorError } from "../../../errors.js";
import { assumption, failureSeen, type ProbeTarget } from "./probe-target.js";
import type { Assumption } from "./report.js";

const route = assumption("routes");

/** Routes protocol 2 added: an early V2 build (no protocol field, 0.0.31) lacks them, and the connector knows. */
function newerRouteAbsent(target: ProbeTarget, id: string, expected: string): Assumption {
  return target.protocol2Declared
    ? route(id, expected, "differs", "absent (the server answered like one without the route)")
    : route(
        id,
        expected,
        "held",
        "absent, as on builds that do not declare protocol 2; the connector reads the full thread",
      );
}

export async function probeRoutes(target: ProbeTarget): Promise<Assumption[]> {
  const { http } = target.connected;
  const signal = () => AbortSignal.timeout(target.timeoutMs);
  const found: Assumption[] = [];

  const shellExpected = "GET /api/orchestration/shell (with the protocol header) answers a V2 shell";
  try {
    const shell = await http.getShell({ signal: signal() });
    found.push(
      route(
        "route.shell",
        shellExpected,
        "held",
        `schemaVersion ${String(shell.schemaVersion ?? "absent")}, ${shell.projects.length} project(s), ${shell.threads.length} thread(s)`,
      ),
    );
  } catch (error) {
    found.push(route("route.shell", shellExpected, "differs", failureSeen(error)));
  }

  const threadExpected = "GET /api/orchestration/threads/:id answers {snapshotSequence, projection}";
  const boundedExpected = "GET /api/orchestration/threads/:id/bounded answers a bounded window";
  const historyExpected = "GET /api/orchestration/threads/:id/history pages older history";
  if (target.threadId === undefined) {
    const none = "the shell has no thread to read";
    found.push(route("route.thread", threadExpected, "unknown", none));
    found.push(route("route.thread-bounded", boundedExpected, "unknown", none));
    found.push(route("route.thread-history", historyExpected, "unknown", none));
  } else {
    const threadId = target.threadId;
    try {
      const thread = await http.getThread(threadId, { signal: signal() });
      const items = thread.projection.turnItems?.length ?? 0;
      found.push(route("route.thread", threadExpected, "held", `a projection with ${items} turn item(s)`));
    } catch (error) {
      found.push(route("route.thread", threadExpected, "differs", failureSeen(error)));
    }
    let cursor: string | undefined;
    try {
      const bounded = await http.getThreadBounded(threadId, { signal: signal() });
      cursor =
        bounded.hasMoreHistory && typeof bounded.historyCursor === "string"
          ? bounded.historyCursor
          : undefined;
      found.push(
        route(
          "route.thread-bounded",
          boundedExpected,
          "held",
          `present (hasMoreHistory ${bounded.hasMoreHistory})`,
        ),
      );
    } catch (error) {
      found.push(
        isConnectorError(error, "route_absent")
          ? newerRouteAbsent(target, "route.thread-bounded", boundedExpected)
          : route("route.thread-bounded", boundedExpected, "differs", failureSeen(error)),
      );
    }
    if (http.lacksRoute("thread-bounded")) {
      found.push(newerRouteAbsent(target, "route.thread-history", historyExpected));
    } else if (cursor === undefined) {
      found.push(
        route("route.thread-history", historyExpected, "unknown", "the thread has no older history to page"),
      );
    } else {
      try {
        const page = await http.getThreadHistory(threadId, cursor, { signal: signal() });
        found.push(
          route("route.thread-history", historyExpected, "held", `a page of ${page.items.length} item(s)`),
        );
      } catch (error) {
        found.push(route("route.thread-history", historyExpected, "differs", failureSeen(error)));
      }
    }
  }

  const projectsExpected = "GET /api/projects lists the projects (a launch checks its project there)";
  try {
    const { projects } = await http.getProjects({ signal: signal() });
    found.push(route("route.projects", projectsExpected, "held", `present (${projects.length} project(s))`));
  } catch (error) {
    found.push(
      route(
        "route.projects",
        projectsExpected,
        "differs",
        isConnectorError(error, "route_absent")
          ? "absent (the web page or a 404); launches read the shell's projects instead"
          : failureSeen(error),
      ),
    );
  }
  return found;
}
