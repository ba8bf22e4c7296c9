/** What the build writes last, relative to the checkout. */
export declare const BUILD_OUTPUTS: readonly string[];
/** Why the checkout at `root` needs a build, or undefined when everything it would write is newer. */
export declare function staleReason(root: string): Promise<string | undefined>;
