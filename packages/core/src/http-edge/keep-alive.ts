/**
 * How long a server of the product keeps an idle keep-alive connection open: longer than the
 * reverse proxies and clients in front of it keep theirs (Caddy's upstream default 2 min, nginx's
 * and cloud balancers' 60 s, undici's from the server's hint minus 2 s). With Node's 5 s default a
 * server closed a connection just as a client or proxy sent its next request on it, which reached
 * the sender as ECONNRESET (or a 502 from the proxy) for a request the server never read; on a
 * loaded machine, where the client's own timer fires late, that happened between two calls of one
 * session. Holding idle connections costs no slot where a connection budget applies: idle ones are
 * the first it closes (read-server's connection-budget.ts).
 */
export const IDLE_KEEP_ALIVE_MS = 130_000;
