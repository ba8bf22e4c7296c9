/**
 * @module The one Host and Origin check in the product (ADR 0056). Against DNS rebinding: a page on
 * a rebound name reaches our address but carries its own name in `Host` and its own `Origin`, so
 * every surface answers only to the names it lists. Names compare in lower case (RFC 9110 §4.2.3:
 * the host is case-insensitive; browsers send it lowered), exactly otherwise: a port, a trailing dot
 * or a bracketed IPv6 literal is part of the value, and `Origin: null` (a sandboxed or opaque page)
 * is never a listed origin. What a refusal says is each surface's own (its fix differs).
 */

/** The `Host` values and browser `Origin`s a surface answers to. */
export interface EdgeNames {
  readonly hosts: ReadonlySet<string>;
  readonly origins: ReadonlySet<string>;
}

/**
 * What a surface expects of `Origin`: `optional` (clients outside a browser send none; a page's
 * must be listed), `required` (a state change from a listed page only) or `forbidden` (a machine
 * route no browser may call).
 */
export type OriginRule = "optional" | "required" | "forbidden";

export type EdgeVerdict =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly header: "Host" | "Origin";
      /** The value the request carried, in lower case (null: none). */
      readonly seen: string | null;
    };

/** The names in lower case, as the check compares them. */
export function edgeNames(hosts: Iterable<string>, origins: Iterable<string> = []): EdgeNames {
  return {
    hosts: new Set([...hosts].map((host) => host.toLowerCase())),
    origins: new Set([...origins].map((origin) => origin.toLowerCase())),
  };
}

/** The request's `Host` and `Origin`, lowered; undefined when absent. */
export function hostAndOrigin(headers: Headers): { host?: string; origin?: string } {
  const host = headers.get("host")?.toLowerCase();
  const origin = headers.get("origin")?.toLowerCase();
  return { ...(host === undefined ? {} : { host }), ...(origin === undefined ? {} : { origin }) };
}

/** Host first (a rebound name is refused whatever its Origin), then Origin under `rule`. */
export function checkHostOrigin(
  headers: Headers,
  names: EdgeNames,
  rule: OriginRule = "optional",
): EdgeVerdict {
  const hostVerdict = checkHost(headers, names);
  if (!hostVerdict.ok) return hostVerdict;
  return checkOrigin(headers, names, rule);
}

/** `Host` must be present and listed. */
export function checkHost(headers: Headers, names: Pick<EdgeNames, "hosts">): EdgeVerdict {
  const { host } = hostAndOrigin(headers);
  if (host === undefined || !names.hosts.has(host)) {
    return { ok: false, header: "Host", seen: host ?? null };
  }
  return { ok: true };
}

/** `Origin` under `rule`: absent or listed, listed, or absent. */
export function checkOrigin(
  headers: Headers,
  names: Pick<EdgeNames, "origins">,
  rule: OriginRule,
): EdgeVerdict {
  const { origin } = hostAndOrigin(headers);
  const allowed =
    rule === "forbidden"
      ? origin === undefined
      : origin === undefined
        ? rule === "optional"
        : names.origins.has(origin);
  return allowed ? { ok: true } : { ok: false, header: "Origin", seen: origin ?? null };
}
