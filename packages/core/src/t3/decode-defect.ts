/**
 * Reading the payload-schema decode defect an older T3 answers to a command type it does not know
 * (ADR 0009). `orchestration.dispatchCommand` then ends in a `Die` whose defect is
 * the server's own union of accepted command shapes:
 *
 *   Expected { readonly "type": "thread.create", ... } | { readonly "type": "thread.archive", ... } | …
 *
 * The payload never decoded, so the handler never ran: that answer proves nothing was applied,
 * and it names every command type the server accepts. Any other text is not this defect.
 */

/**
 * One union member: `{ readonly "type": "<command type>", ... }`, where the server may render a
 * member's other literal fields after the type (`readonly "reason": "user"`, fixture 33b).
 */
const MEMBER =
  /^\{\s*readonly\s+"type"\s*:\s*"([^"\s]+)"(?:\s*,\s*readonly\s+"[^"]+"\s*:\s*(?:"[^"]*"|[\w.-]+))*\s*,\s*\.\.\.\s*\}/;
const PREFIX = /^\s*Expected\s+/;
const SEPARATOR = /^\s*\|\s*/;

/**
 * The command types listed by a decode defect, in the server's order without repeats; undefined
 * when `defect` is not that defect (another `Die`, a union with an elided or foreign member).
 * Text after the union (a schema library may append `, got …` or a path on a new line) is ignored.
 */
export function parseAcceptedCommandTypes(defect: string): readonly string[] | undefined {
  const prefix = PREFIX.exec(defect);
  if (!prefix) return undefined;
  let rest = defect.slice(prefix[0].length);
  const types: string[] = [];
  for (;;) {
    const member = MEMBER.exec(rest);
    if (!member?.[1]) return undefined;
    if (!types.includes(member[1])) types.push(member[1]);
    rest = rest.slice(member[0].length);
    const separator = SEPARATOR.exec(rest);
    if (!separator) break;
    rest = rest.slice(separator[0].length);
  }
  // What follows the union must not continue it (e.g. a member the regex could not read).
  if (rest.length > 0 && !/^(\s*$|\s*,|\s*\n)/.test(rest)) return undefined;
  return types;
}
