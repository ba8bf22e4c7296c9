import { ConnectorError } from "../errors.js";
import { CURSOR_FORMAT_VERSION, type CursorCodec, type CursorPayload } from "./cursor-codec.js";
import { compareKeyParts, compareKeys, type KeyPart, type SortDirection, type SortKey } from "./key-order.js";
import {
  digestQuery,
  digestSignature,
  formatSignature,
  parseSignature,
  type QueryIdentity,
  type QuerySignature,
  type SignatureDigests,
} from "./query-signature.js";

/** How a listing orders its items. */
export interface PageOrder<T> {
  /** Sort key of an item. Its last element must be unique among the matches (an id). */
  key(item: T): SortKey;
  /** Direction of each key element; also fixes the key length. */
  directions: readonly SortDirection[];
  /**
   * Version stamp of an item (e.g. `updatedAt` as epoch milliseconds), for listings that detect
   * items that changed during a traversal. Omit it when the listing has no such stamp.
   */
  version?: (item: T) => string | number | null | undefined;
}

export interface PageRequest {
  signature: QuerySignature;
  cursor?: string | undefined;
  /** Page size (>= 1). Omitted: every remaining match. */
  limit?: number | undefined;
}

export interface Page<T> {
  items: T[];
  /** Every current match, counted before the cut and the slice. */
  total: number;
  returned: number;
  /** More items follow; `nextCursor` is then set. */
  truncated: boolean;
  nextCursor?: string;
  /** On later pages: matches whose version moved past the first page's cut (omitted when 0). */
  changedSinceStart?: number;
}

export const FOREIGN_CURSOR_MESSAGE =
  "This cursor belongs to another query (different environment, tool or filters). " +
  "Repeat the call without a cursor.";

export const COVERAGE_CHANGED_MESSAGE =
  "The environments that answered changed since the first page, so the pages would not fit together. " +
  "Restart the listing: repeat the call without a cursor.";

/**
 * Checks a cursor against the query identity alone (no coverage). A tool can call this before it
 * sweeps the environments, so a cursor of another query fails fast instead of after a full sweep.
 */
export function openCursor(codec: CursorCodec, cursor: string, identity: QueryIdentity): CursorPayload {
  const payload = codec.decode(cursor);
  const stored = parseSignature(payload.q);
  if (stored === undefined) throw new ConnectorError("invalid_cursor", FOREIGN_CURSOR_MESSAGE);
  if (stored.query !== digestQuery(identity))
    throw new ConnectorError("invalid_cursor", FOREIGN_CURSOR_MESSAGE);
  return payload;
}

/**
 * One page of `matches` (already filtered by the ACL and the tool's filters) in `order`.
 *
 * - The first page (no cursor) starts at the smallest key; a later page takes the items whose key
 *   is strictly greater than the cursor's `k`, so an item deleted or inserted meanwhile never
 *   shifts the window.
 * - With a version stamp, the first page records the cut `c`: the highest version among all its
 *   matches (not only the returned ones, so that older items further down are not mistaken for
 *   moved ones). Later pages drop every match whose version is above `c`, wherever it sits, and
 *   count them in `changedSinceStart`.
 */
export function paginate<T>(
  codec: CursorCodec,
  matches: readonly T[],
  order: PageOrder<T>,
  request: PageRequest,
): Page<T> {
  const { limit } = request;
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
    throw new ConnectorError("invalid_input", "limit must be an integer of at least 1");
  }
  const digests = digestSignature(request.signature);
  const keyed = matches.map((item) => ({ item, key: order.key(item) }));
  keyed.sort((a, b) => compareKeys(a.key, b.key, order.directions));
  const total = keyed.length;

  let candidates = keyed;
  let cut: string | number | undefined;
  let changedSinceStart = 0;
  if (request.cursor === undefined) {
    cut = highestVersion(matches, order);
  } else {
    const payload = openForPage(codec, request.cursor, digests, order.directions.length);
    cut = payload.c;
    const after = payload.k;
    candidates = keyed.filter((entry) => compareKeys(entry.key, after, order.directions) > 0);
    const { version } = order;
    if (cut !== undefined && version !== undefined) {
      const bound = cut;
      const moved = (item: T): boolean => {
        const stamp = version(item);
        return stamp !== undefined && stamp !== null && compareKeyParts(stamp, bound) > 0;
      };
      changedSinceStart = keyed.filter((entry) => moved(entry.item)).length;
      candidates = candidates.filter((entry) => !moved(entry.item));
    }
  }

  const pageEntries = limit === undefined ? candidates : candidates.slice(0, limit);
  return pageOf(pageEntries, candidates.length, { total, changedSinceStart, cut, codec, digests });
}

/**
 * The page of `entries` (already cut to the limit) out of `candidateCount` in order: the next
 * cursor continues after its last key, under the same query signature and version cut.
 */
function pageOf<T>(
  entries: readonly { item: T; key: SortKey }[],
  candidateCount: number,
  context: {
    total: number;
    changedSinceStart: number;
    cut: string | number | undefined;
    codec: CursorCodec;
    digests: ReturnType<typeof digestSignature>;
  },
): Page<T> {
  const truncated = entries.length < candidateCount;
  const page: Page<T> = {
    items: entries.map((entry) => entry.item),
    total: context.total,
    returned: entries.length,
    truncated,
  };
  const last = entries.at(-1);
  if (truncated && last !== undefined) {
    const payload: CursorPayload = {
      v: CURSOR_FORMAT_VERSION,
      q: formatSignature(context.digests),
      k: last.key,
    };
    if (context.cut !== undefined) payload.c = context.cut;
    page.nextCursor = context.codec.encode(payload);
  }
  if (context.changedSinceStart > 0) page.changedSinceStart = context.changedSinceStart;
  return page;
}

function openForPage(
  codec: CursorCodec,
  cursor: string,
  digests: SignatureDigests,
  keyLength: number,
): CursorPayload {
  const payload = codec.decode(cursor);
  const stored = parseSignature(payload.q);
  if (stored === undefined || stored.query !== digests.query || payload.k.length !== keyLength) {
    throw new ConnectorError("invalid_cursor", FOREIGN_CURSOR_MESSAGE);
  }
  if (stored.coverage !== digests.coverage) {
    throw new ConnectorError("coverage_changed", COVERAGE_CHANGED_MESSAGE);
  }
  return payload;
}

function highestVersion<T>(matches: readonly T[], order: PageOrder<T>): string | number | undefined {
  const { version } = order;
  if (version === undefined) return undefined;
  let highest: KeyPart | undefined;
  for (const item of matches) {
    const stamp = version(item);
    if (stamp === undefined || stamp === null) continue;
    if (highest === undefined || compareKeyParts(stamp, highest) > 0) highest = stamp;
  }
  return highest === undefined || highest === null ? undefined : highest;
}

/**
 * One source's share of a page built from ordered indexes instead of every match: what
 * `paginate` would compute from that source's matches, taken without visiting them all.
 */
export interface PresortedShare<T> {
  /** Every match of the source (before the cursor and the cut). */
  total: number;
  /**
   * The matches after the cursor's key that did not move past the cut, in order: all of them, or
   * at least `limit + 1` (so that the merge can tell whether more follow).
   */
  candidates: readonly T[];
  /** Later pages: matches whose version is above the cut. */
  changedSinceStart: number;
  /** First page: the highest version among all the source's matches (undefined: none has one). */
  highestVersion?: KeyPart | undefined;
}

/**
 * The page `paginate` would answer for the union of the sources' matches, from each source's
 * share (see `PresortedShare`): the same total, items, truncation, cursor and moved count, at the
 * cost of the candidates only. `limit` is required (a share holds at most `limit + 1` candidates).
 * The cursor is checked exactly as `paginate` checks it.
 */
export function paginatePresorted<T>(
  codec: CursorCodec,
  shares: ReadonlyArray<PresortedShare<T>>,
  order: PageOrder<T>,
  request: PageRequest & { limit: number },
): Page<T> {
  const { limit } = request;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new ConnectorError("invalid_input", "limit must be an integer of at least 1");
  }
  const digests = digestSignature(request.signature);
  let cut: string | number | undefined;
  if (request.cursor === undefined) {
    let highest: KeyPart | undefined;
    for (const share of shares) {
      const stamp = share.highestVersion;
      if (stamp === undefined || stamp === null) continue;
      if (highest === undefined || compareKeyParts(stamp, highest) > 0) highest = stamp;
    }
    cut = order.version === undefined || highest === undefined || highest === null ? undefined : highest;
  } else {
    cut = openForPage(codec, request.cursor, digests, order.directions.length).c;
  }
  const keyed = shares.flatMap((share) => share.candidates.map((item) => ({ item, key: order.key(item) })));
  keyed.sort((a, b) => compareKeys(a.key, b.key, order.directions));
  const total = shares.reduce((sum, share) => sum + share.total, 0);
  const changedSinceStart =
    request.cursor === undefined ? 0 : shares.reduce((sum, share) => sum + share.changedSinceStart, 0);
  return pageOf(keyed.slice(0, limit), keyed.length, { total, changedSinceStart, cut, codec, digests });
}
