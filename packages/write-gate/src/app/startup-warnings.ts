/**
 * @module What the gate found wrong at start (an environment it can never operate), kept for the
 * page: the terminal line scrolls away, and the person approving at the page must see that writes
 * to that environment will fail, and what to do, before they grant anything there.
 */

/** One environment the gate cannot operate, in words for the page. */
export interface StartupWarning {
  readonly alias: string;
  readonly environmentId: string;
  readonly code: string;
  /** What is wrong (the connector error's own message, which names the environment). */
  readonly message: string;
  /** What the person should do about it. */
  readonly advice: string;
}

/** What the page is told besides leases and passkeys (the `gate` field of `POST /api/state`). */
export interface PageNotices {
  /** The printed code would register a passkey now: none yet, or `gate --enroll` (recovery). */
  readonly codeEnrollment: boolean;
  readonly warnings: readonly StartupWarning[];
}

export function pageNotices(
  enrollment: { codeAccepted(): boolean },
  warnings: StartupWarnings | undefined,
): PageNotices {
  return { codeEnrollment: enrollment.codeAccepted(), warnings: warnings?.list() ?? [] };
}

export class StartupWarnings {
  #warnings: readonly StartupWarning[] = [];
  readonly #listeners = new Set<() => void>();

  list(): readonly StartupWarning[] {
    return this.#warnings;
  }

  /** Adds the check's findings (one per environment: a later finding for an alias replaces its older one). */
  add(found: readonly StartupWarning[]): void {
    if (found.length === 0) return;
    const aliases = new Set(found.map((warning) => warning.alias));
    // Only the page's fields: a caller's extra fields (the terminal line) stay off the page.
    const shown = found.map(({ alias, environmentId, code, message, advice }) => ({
      alias,
      environmentId,
      code,
      message,
      advice,
    }));
    this.#warnings = [...this.#warnings.filter((warning) => !aliases.has(warning.alias)), ...shown];
    for (const listener of this.#listeners) listener();
  }

  /** Called after every change; answers the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
