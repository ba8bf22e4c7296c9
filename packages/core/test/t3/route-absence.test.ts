import { describe, expect, it } from "vitest";
import { routeAbsence } from "../../src/t3/route-absence.js";

const ROUTE = "GET /api/orchestration/threads/t1/bounded";
const t3Json = (body: Record<string, unknown>) => JSON.stringify(body);

describe("routeAbsence", () => {
  it("takes a 2xx HTML page (an installed T3's web app) as the route missing", () => {
    const error = routeAbsence(ROUTE, 200, "text/html; charset=utf-8", "<!doctype html><html></html>");
    expect(error?.code).toBe("route_absent");
    expect(error?.message).toContain("text/html");
  });

  it("takes a 503 text page (T3 run from source) as the route missing", () => {
    const error = routeAbsence(
      ROUTE,
      503,
      "text/plain",
      "No static directory configured and no dev URL set.",
    );
    expect(error?.code).toBe("route_absent");
  });

  it("takes a 404 without T3's thread_not_found as the route missing", () => {
    expect(routeAbsence(ROUTE, 404, null, "")?.code).toBe("route_absent");
    expect(routeAbsence(ROUTE, 404, "application/json", t3Json({ _tag: "RouteNotFound" }))?.code).toBe(
      "route_absent",
    );
  });

  it("leaves a real answer alone: JSON 200, thread_not_found, T3's own JSON 503, other statuses", () => {
    expect(routeAbsence(ROUTE, 200, "application/json", "{}")).toBeUndefined();
    const notFound = t3Json({ _tag: "OrchestrationHttpError", reason: "thread_not_found" });
    expect(routeAbsence(ROUTE, 404, "application/json", notFound)).toBeUndefined();
    const busy = t3Json({ _tag: "OrchestrationHttpError", reason: "orchestration_snapshot_failed" });
    expect(routeAbsence(ROUTE, 503, "application/json", busy)).toBeUndefined();
    expect(routeAbsence(ROUTE, 400, null, "")).toBeUndefined();
    expect(routeAbsence(ROUTE, 500, "text/plain", "boom")).toBeUndefined();
  });
});
