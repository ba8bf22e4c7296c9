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
  return [await probeShell(target), ...(await probeThreadRoutes(target)), await probeProjects(target)];
}

const signalOf = (target: ProbeTarget) => ({ signal: AbortSignal.timeout(target.timeoutMs) });

async function probeShell(target: ProbeTarget): Promise<Assumption> {
  const expected = "GET /api/orchestration/shell (with the protocol header) answers a V2 shell";
  try {
    const shell = await target.connected.http.getShell(signalOf(target));
    const seen =
      `schemaVersion ${String(shell.schemaVersion ?? "absent")}, ${shell.projects.length} project(s), ` +
      `${shell.threads.length} thread(s)`;
    return route("route.shell", expected, "held", seen);
  } catch (error) {
    return route("route.shell", expected, "differs", failureSeen(error));
  }
}

const THREAD_EXPECTED = "GET /api/orchestration/threads/:id answers {snapshotSequence, projection}";
const BOUNDED_EXPECTED = "GET /api/orchestration/threads/:id/bounded answers a bounded window";
const HISTORY_EXPECTED = "GET /api/orchestration/threads/:id/history pages older history";

async function probeThreadRoutes(target: ProbeTarget): Promise<Assumption[]> {
  const threadId = target.threadId;
  if (threadId === undefined) {
    const none = "the shell has no thread to read";
    return [
      route("route.thread", THREAD_EXPECTED, "unknown", none),
      route("route.thread-bounded", BOUNDED_EXPECTED, "unknown", none),
      route("route.thread-history", HISTORY_EXPECTED, "unknown", none),
    ];
  }
  const { http } = target.connected;
  const found: Assumption[] = [];
  try {
    const thread = await http.getThread(threadId, signalOf(target));
    const items = thread.projection.turnItems?.length ?? 0;
    found.push(route("route.thread", THREAD_EXPECTED, "held", `a projection with ${items} turn item(s)`));
  } catch (error) {
    found.push(route("route.thread", THREAD_EXPECTED, "differs", failureSeen(error)));
  }
  let cursor: string | undefined;
  try {
    const bounded = await http.getThreadBounded(threadId, signalOf(target));
    cursor =
      bounded.hasMoreHistory && typeof bounded.historyCursor === "string" ? bounded.historyCursor : undefined;
    const seen = `present (hasMoreHistory ${bounded.hasMoreHistory})`;
    found.push(route("route.thread-bounded", BOUNDED_EXPECTED, "held", seen));
  } catch (error) {
    found.push(
      isConnectorError(error, "route_absent")
        ? newerRouteAbsent(target, "route.thread-bounded", BOUNDED_EXPECTED)
        : route("route.thread-bounded", BOUNDED_EXPECTED, "differs", failureSeen(error)),
    );
  }
  found.push(await probeHistory(target, threadId, cursor));
  return found;
}

async function probeHistory(
  target: ProbeTarget,
  threadId: string,
  cursor: string | undefined,
): Promise<Assumption> {
  const { http } = target.connected;
  if (http.lacksRoute("thread-bounded"))
    return newerRouteAbsent(target, "route.thread-history", HISTORY_EXPECTED);
  if (cursor === undefined) {
    return route(
      "route.thread-history",
      HISTORY_EXPECTED,
      "unknown",
      "the thread has no older history to page",
    );
  }
  try {
    const page = await http.getThreadHistory(threadId, cursor, signalOf(target));
    return route("route.thread-history", HISTORY_EXPECTED, "held", `a page of ${page.items.length} item(s)`);
  } catch (error) {
    return route("route.thread-history", HISTORY_EXPECTED, "differs", failureSeen(error));
  }
}

async function probeProjects(target: ProbeTarget): Promise<Assumption> {
  const expected = "GET /api/projects lists the projects (a launch checks its project there)";
  try {
    const { projects } = await target.connected.http.getProjects(signalOf(target));
    return route("route.projects", expected, "held", `present (${projects.length} project(s))`);
  } catch (error) {
    const seen = isConnectorError(error, "route_absent")
      ? "absent (the web page or a 404); launches read the shell's projects instead"
      : failureSeen(error);
    return route("route.projects", expected, "differs", seen);
  }
}
