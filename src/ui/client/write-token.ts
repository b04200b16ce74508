// The write token of `switchyard ui` (docs/ui.md, "Writes"): the address it prints ends in
// #token=…; the page moves the token into this tab's sessionStorage and takes it out of the
// address bar (so it is not bookmarked, shared in a screenshot or kept in the history), and sends
// it in a header with each write. It is never shown on a page.

const KEY = "switchyard.write-token";

/** Moves a `#token=…` of the address into sessionStorage and leaves the address at the runs page. */
export function takeWriteToken(): void {
  const m = /^#token=([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (!m?.[1]) return;
  try {
    sessionStorage.setItem(KEY, m[1]);
  } catch {
    // Storage turned off: the page then reads only, and says how to answer.
  }
  history.replaceState(null, "", `${location.pathname}${location.search}#/`);
}

/** This tab's write token, or null when the page was not opened from the printed address. */
export function writeToken(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}
