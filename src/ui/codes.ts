// The web view's error codes: what `switchyard ui`'s JSON endpoints answer with in
// {"error": {"code", "message"}} (docs/ui.md), for `switchyard explain CODE`.

import type { CodeEntry } from "../lang/diagnostic.js";

/** Every code the web view answers with, and what each means. */
export const UI_CODES: CodeEntry[] = [
  {
    code: "ui-path-refused",
    summary: "a web view request path has a `.` or `..` segment, an empty one, or a slash, backslash or NUL inside a segment",
    explain:
      "The web view serves only what the state folder's records name, and refuses any request path that could mean another place (400) before it looks at anything. Use the paths the pages link to, with each segment percent-encoded (for example a key containing a slash as %2F).",
  },
  {
    code: "ui-bad-path",
    summary: "a web view request path is not valid percent-encoding",
    explain:
      "A `%` in the path must be followed by two hex digits that decode to UTF-8. Encode each segment with encodeURIComponent (400).",
  },
  {
    code: "ui-bad-parameter",
    summary: "a query parameter of a web view endpoint is out of range",
    explain:
      "`offset`, `limit`, `after` and `attempt` are integers within the ranges docs/ui.md gives for each endpoint (400). The message names the parameter and its range.",
  },
  {
    code: "ui-not-found",
    summary: "no such run, task, key, file or lab in the state folder the web view serves",
    explain:
      "The run id, task name, key (a query parameter: ?key=K), attempt file or lab id in the request is not in this state folder (404). Check the state folder `switchyard ui` was started on (--state-dir, $SWITCHYARD_HOME, ./.switchyard) and `switchyard runs`. Workspace files are only served as regular files: symbolic links are not followed.",
  },
  {
    code: "ui-no-runs",
    summary: "the state folder the web view serves has no runs yet",
    explain:
      "No run has been started in this state folder (404). Start one with `switchyard run PATH`; the runs page shows it as it starts.",
  },
  {
    code: "ui-wrong-host",
    summary: "a request reached the web view under a host name that is not its own",
    explain:
      "While it listens on a loopback address, `switchyard ui` answers only requests whose Host header is 127.0.0.1, localhost or ::1 (421), so that a page on another site cannot read your runs through a DNS name pointed at 127.0.0.1. Open the address it printed.",
  },
  {
    code: "ui-read-only",
    summary: "the web view accepts GET and HEAD only",
    explain: "`switchyard ui` never changes a run or the state folder (405). Use `switchyard resume`, `cancel` or `run` for that.",
  },
  {
    code: "ui-server-error",
    summary: "the web view failed while answering a request",
    explain:
      "A bug in switchyard, not in the request (500): the terminal running `switchyard ui` shows the trace. Please report it with that trace.",
  },
];
