// Whether an error means the connection to the PostgreSQL server is gone (the server restarting,
// stopped, unreachable), as opposed to a statement the server refused. node-postgres says so in
// several ways: a system error code (ECONNRESET, ...), a SQLSTATE of the connection or shutdown
// classes (08xxx; 57P01 "terminating connection due to administrator command", 57P02, 57P03), or
// only in words ("Connection terminated unexpectedly", "Client has encountered a connection error
// and is not queryable"); graphile-worker may wrap such errors (an AggregateError of its workers'
// errors, a `cause`). A person is told about a lost server in one line: none of these is a bug.

const LOST_CODES = /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|08\w{3}|57P0[123])$/;
// node-postgres's own words, then the server's for the shutdown classes (57P01, 57P02, 57P03), which
// graphile-worker repeats without the code when its runner stops.
const LOST_WORDS =
  /^(Connection terminated( unexpectedly| due to connection timeout)?|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect|terminating connection due to administrator command|terminating connection because of crash of another server process|the database system is (shutting down|starting up|in recovery mode))$/;

/**
 * When `err` (or every error it wraps) is a lost connection to the server: what to name it by
 * (its system code or SQLSTATE, else node-postgres's words); otherwise undefined.
 */
export function lostConnection(err: unknown, depth = 0): string | undefined {
  if (depth > 4 || err === null || typeof err !== "object") return undefined;
  const e: { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown } = err;
  if (typeof e.code === "string" && LOST_CODES.test(e.code)) return e.code;
  if (typeof e.message === "string" && LOST_WORDS.test(e.message)) return e.message;
  if (Array.isArray(e.errors) && e.errors.length > 0) {
    const names = e.errors.map((x) => lostConnection(x, depth + 1));
    return names.every((n) => n !== undefined) ? names[0] : undefined;
  }
  return e.cause !== undefined ? lostConnection(e.cause, depth + 1) : undefined;
}
