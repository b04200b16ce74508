// The location hash of the web view's pages, shared by the browser (links, navigation) and the
// server (the lab report's links to cells).

/** An instance named by its task and key (null for an unmapped task). */
export interface CellRef {
  task: string;
  key: string | null;
}

/** The location hash of a run page, or of one of its cells. */
export function runHash(run: string, cell?: CellRef | null): string {
  const base = `#/runs/${encodeURIComponent(run)}`;
  if (!cell) return base;
  return `${base}/cell/${encodeURIComponent(cell.task)}${cell.key === null ? "" : `/${encodeURIComponent(cell.key)}`}`;
}
