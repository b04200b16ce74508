// The lab tables of a PostgreSQL store shared by several machines (`labs`, `lab_current`,
// `lab_pairs`): which labs exist, which one is current, and every shadow and audit pair as its
// line of pairs.jsonl. src/lab/shared-labs.ts decides when each is read or written.

import type { PostgresStore } from "./store-postgres.js";

/** A lab's row: its id, when it was made (ISO time) and its note. */
export interface LabRow {
  id: string;
  created: string;
  note: string;
}

/** Adds a lab, committed when it returns. */
export function insertLabRow(pg: PostgresStore, lab: LabRow): void {
  pg.exec({ sqlite: "INSERT INTO labs (id, created, note) VALUES (?, ?, ?)" }, [lab.id, lab.created, lab.note]);
}

/** Removes a lab (one that lost the race to be current, before any pair names it). */
export function deleteLabRow(pg: PostgresStore, id: string): void {
  pg.exec({ sqlite: "DELETE FROM labs WHERE id = ?" }, [id]);
}

/** The id of the current lab, or undefined when none is. */
export function currentLabId(pg: PostgresStore): string | undefined {
  return pg.select<{ id: string }>({ sqlite: "SELECT id FROM lab_current WHERE only_row" })[0]?.id;
}

/** Makes a lab current for every machine, replacing the current one. */
export function setCurrentLab(pg: PostgresStore, id: string): void {
  pg.exec(
    {
      sqlite: "INSERT INTO lab_current (only_row, id) VALUES (TRUE, ?)",
      postgres: "INSERT INTO lab_current (only_row, id) VALUES (TRUE, $1) ON CONFLICT (only_row) DO UPDATE SET id = excluded.id",
    },
    [id],
  );
}

/** Makes a lab current only when none is (of two machines racing, the first wins). */
export function setCurrentLabIfNone(pg: PostgresStore, id: string): void {
  pg.exec(
    {
      sqlite: "INSERT INTO lab_current (only_row, id) VALUES (TRUE, ?)",
      postgres: "INSERT INTO lab_current (only_row, id) VALUES (TRUE, $1) ON CONFLICT (only_row) DO NOTHING",
    },
    [id],
  );
}

/**
 * Adds a pair's line to a lab with the store's next commit (the one that records the decision's
 * events), merged with the commit's other pairs into one insert; ids follow the order they were added in.
 */
export function addPairToNextCommit(pg: PostgresStore, lab: string, line: string): void {
  pg.addToNextCommit({
    text: "INSERT INTO lab_pairs (lab, line) SELECT l, p FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(l, p, o) ORDER BY o",
    values: [[lab], [line]],
    merge: true,
  });
}

/** Every lab, oldest first. */
export function labRows(pg: PostgresStore): LabRow[] {
  return pg.select<LabRow>({ sqlite: "SELECT id, created, note FROM labs ORDER BY created, id" });
}

/** The pair lines of one lab, in the order they were committed. */
export function labPairLines(pg: PostgresStore, lab: string): string[] {
  return pg.select<{ line: string }>({ sqlite: "SELECT line FROM lab_pairs WHERE lab = ? ORDER BY id" }, [lab]).map((r) => r.line);
}
