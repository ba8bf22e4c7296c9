/**
 * @module The `oauth` section of the read config (or `--oauth --issuer URL`), checked and filled
 * with defaults. The issuer is the public origin clients are told; everything else derives from it.
 */
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { configInvalid } from "@t3-connector/core/config";
import { z } from "zod";
import { DEFAULT_CLIENT_ID_URLS, DEFAULT_REDIRECT_URIS } from "./known-clients.js";

/** Every read tool. */
export const READ_SCOPE = "t3:read";
/**
 * The write tools, for a session the person allowed to ask for leases: every change still needs
 * their passkey on the approval page (ADR 0049). Offered only when `serve` found a gate.
 */
export const WRITE_SCOPE = "t3:write";
/** The scopes of a server without writes. */
export const SCOPES_SUPPORTED: readonly string[] = [READ_SCOPE];

export interface OAuthSettings {
  /** `https://name[:port]` or `http://localhost:<port>`; no path, no trailing slash. */
  readonly issuer: string;
  /** The canonical resource: `<issuer>/mcp` (RFC 8707, RFC 9728). */
  readonly resource: string;
  /** The issuer's `Host` (name and port as a client sends it): the only one served. */
  readonly host: string;
  /** RP ID of the passkeys: the issuer's host name, without port. */
  readonly rpId: string;
  /** What a client may ask for: `t3:read`, and `t3:write` when `serve` serves the write tools. */
  readonly scopesSupported: readonly string[];
  /** Private directory for passkeys, clients and sessions. */
  readonly stateDir: string;
  /** Exact redirect URIs a DCR client may register, beyond the built-in ones. */
  readonly redirectUris: readonly string[];
  /** RFC 8252 loopback callbacks (`http://127.0.0.1:<port>/…`) for native clients and tests. */
  readonly loopbackRedirects: boolean;
  /** Client-id URLs accepted for CIMD (exact). */
  readonly clientIdUrls: readonly string[];
  /** Whether DCR (`/register`) is offered at all. */
  readonly dynamicRegistration: boolean;
  /** A session ends after this long without a `tools/call`. */
  readonly idleMs: number;
  /** A session ends this long after consent whatever its activity; undefined: no cap. */
  readonly maxAgeMs: number | undefined;
  readonly lifetimes: OAuthLifetimes;
}

export interface OAuthLifetimes {
  /** Authorization codes (single use). */
  readonly codeMs: number;
  /** Access tokens; cut further to the session's idle or max-age deadline. */
  readonly accessTokenMs: number;
  /** Each refresh token generation (rotated at every use). */
  readonly refreshTokenMs: number;
  /** From `/authorize` to the consent click. */
  readonly transactionMs: number;
  /** A WebAuthn challenge. */
  readonly ceremonyMs: number;
}

export const DEFAULT_LIFETIMES: OAuthLifetimes = Object.freeze({
  codeMs: 60_000,
  accessTokenMs: 60_000,
  refreshTokenMs: 24 * 3_600_000,
  transactionMs: 10 * 60_000,
  ceremonyMs: 120_000,
});

const DEFAULT_IDLE_MINUTES = 60;

function sectionSchema(homeDir: string) {
  return z.strictObject({
    issuer: z.string().trim().min(1),
    stateDir: z
      .string()
      .trim()
      .min(1)
      .transform((path) => (path.startsWith("~/") ? join(homeDir, path.slice(2)) : path))
      .refine(isAbsolute, { message: "must be an absolute path (or start with ~/)" })
      .optional(),
    redirectUris: z.array(z.string().trim().min(1)).optional(),
    loopbackRedirects: z.boolean().optional(),
    clientIdUrls: z.array(z.string().trim().min(1)).optional(),
    dynamicRegistration: z.boolean().optional(),
    idleMinutes: z
      .number()
      .int()
      .min(1)
      .max(24 * 60)
      .optional(),
    maxAgeHours: z
      .number()
      .positive()
      .max(24 * 90)
      .optional(),
  });
}

export type OAuthSection = z.input<ReturnType<typeof sectionSchema>>;

/** The default state directory: beside the events follower's, under XDG_STATE_HOME. */
export function defaultOAuthStateDir(
  env: Record<string, string | undefined> = process.env,
  home = homedir(),
): string {
  const base = env.XDG_STATE_HOME?.startsWith("/") ? env.XDG_STATE_HOME : join(home, ".local", "state");
  return join(base, "t3-connector", "oauth");
}

/**
 * Checks the section and derives the settings. A problem is `config_invalid` naming the field,
 * as for the rest of the read config.
 */
export function parseOAuthSettings(
  raw: unknown,
  options: {
    configPath: string;
    homeDir?: string;
    env?: Record<string, string | undefined>;
    /** `serve` serves the write tools (it found a gate): `t3:write` may be asked for. */
    writes?: boolean;
  },
): OAuthSettings {
  const home = options.homeDir ?? homedir();
  const parsed = sectionSchema(home)
    .superRefine((section, context) => {
      const problem = issuerProblem(section.issuer);
      if (problem !== undefined) context.addIssue({ code: "custom", path: ["issuer"], message: problem });
      for (const [index, uri] of (section.redirectUris ?? []).entries()) {
        const found = redirectUriProblem(uri);
        if (found !== undefined)
          context.addIssue({ code: "custom", path: ["redirectUris", index], message: found });
      }
      for (const [index, url] of (section.clientIdUrls ?? []).entries()) {
        const found = clientIdUrlProblem(url);
        if (found !== undefined)
          context.addIssue({ code: "custom", path: ["clientIdUrls", index], message: found });
      }
    })
    .safeParse(raw);
  if (!parsed.success) {
    const prefixed = new z.ZodError(
      parsed.error.issues.map((issue) => ({ ...issue, path: ["oauth", ...issue.path] })),
    );
    throw configInvalid(options.configPath, prefixed);
  }
  const section = parsed.data;
  const issuer = new URL(section.issuer).origin;
  const url = new URL(issuer);
  return {
    issuer,
    resource: `${issuer}/mcp`,
    host: url.host,
    rpId: url.hostname,
    scopesSupported: options.writes === true ? [READ_SCOPE, WRITE_SCOPE] : SCOPES_SUPPORTED,
    stateDir: section.stateDir ?? defaultOAuthStateDir(options.env, home),
    redirectUris: [...DEFAULT_REDIRECT_URIS, ...(section.redirectUris ?? [])],
    loopbackRedirects: section.loopbackRedirects === true,
    clientIdUrls: [...DEFAULT_CLIENT_ID_URLS, ...(section.clientIdUrls ?? [])],
    dynamicRegistration: section.dynamicRegistration !== false,
    idleMs: (section.idleMinutes ?? DEFAULT_IDLE_MINUTES) * 60_000,
    maxAgeMs: section.maxAgeHours === undefined ? undefined : section.maxAgeHours * 3_600_000,
    lifetimes: DEFAULT_LIFETIMES,
  };
}

/**
 * An issuer is an origin: `https://name[:port]`, or `http://localhost:<port>` for trying it out on
 * this machine (a browser treats that as a secure context, so passkeys work there). Nothing else
 * over plain http: tokens and the passkey page would cross the network in clear.
 */
export function issuerProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `"${value}" is not a URL; give the public origin, e.g. https://mcp.example.com`;
  }
  if (url.origin !== value.replace(/\/$/, "") || url.username !== "" || url.search !== "") {
    return "the issuer is an origin only (scheme, host, optional port; no path, query or credentials)";
  }
  if (url.protocol === "https:") return undefined;
  if (url.protocol === "http:" && url.hostname === "localhost" && url.port !== "") return undefined;
  return "the issuer must be https://…, or http://localhost:<port> on this machine only";
}

function redirectUriProblem(value: string): string | undefined {
  if (!URL.canParse(value)) return `"${value}" is not a URL`;
  const url = new URL(value);
  if (url.protocol !== "https:")
    return "a configured redirect URI must be https (loopback ones: loopbackRedirects)";
  if (url.hash !== "") return "a redirect URI has no fragment";
  return undefined;
}

function clientIdUrlProblem(value: string): string | undefined {
  if (!URL.canParse(value)) return `"${value}" is not a URL`;
  const url = new URL(value);
  if (url.protocol !== "https:" || url.pathname === "/" || url.hash !== "" || url.href !== value) {
    return "a client-id URL is an https URL with a path, written exactly as the client sends it";
  }
  return undefined;
}
