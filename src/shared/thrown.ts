// Facts about anything thrown, without asserting its type: a catch clause binds `unknown`, and
// Node, SQLite and libraries throw Errors carrying a string `code` (ENOENT, EACCES, SQLITE_BUSY).

/** The message of a thrown value: an Error's message, else its text. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The string `code` of a thrown value (an errno name such as ENOENT, SQLITE_BUSY), when it has one. */
export function errnoCode(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null || !("code" in err)) return undefined;
  return typeof err.code === "string" ? err.code : undefined;
}
