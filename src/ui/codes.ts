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
    summary: "the web view takes GET and HEAD, and POST only for answers to review questions",
    explain:
      "`switchyard ui` never changes a run (405). Its one write is an answer to a review question, `POST /api/runs/RUN/review` (docs/ui.md); every other method or path is refused, and so is that one on a server made without writes (the library's `createUiServer` without `writes`). Use `switchyard resume`, `cancel` or `run` to change a run.",
  },
  {
    code: "ui-token-refused",
    summary: "a write to the web view came without the token `switchyard ui` printed, or with another",
    explain:
      "An answer to a review question must carry, in the `X-Switchyard-Token` header, the token in the address `switchyard ui` printed (`http://127.0.0.1:PORT/#token=…`) (403). The page sends it once it was opened from that address; a page opened from a bare address, or from the address of an earlier start (the token is new at each start), only reads. Open the address it printed last.",
  },
  {
    code: "ui-foreign-origin",
    summary: "a write to the web view came without an Origin header, or from another site",
    explain:
      "An answer must carry an `Origin` header equal to the server's own address (`http://` and the Host it was sent to) (403), so that a page on another site cannot answer for you even if it knew the token. Browsers send it by themselves; a script must send it too.",
  },
  {
    code: "ui-write-not-local",
    summary: "a write reached the web view from another machine, which it was not started to accept",
    explain:
      "`switchyard ui` takes answers to review questions only from this machine (403) unless it was started with `--host` on an address others reach, an explicit choice it warns about. Answer from this machine, or restart it with `--host`.",
  },
  {
    code: "ui-bad-body",
    summary: "the body of a write to the web view is not the JSON it takes",
    explain:
      'An answer is a JSON object (Content-Type: application/json, at most 64 KiB): `{"task", "key", "answers": {QUESTION: LABEL}, "who", "note"?}`, with `who` 1 to 100 characters and the note at most 4000 (400, 413 or 415). The message says which part is wrong.',
  },
  {
    code: "ui-server-error",
    summary: "the web view failed while answering a request",
    explain:
      "A bug in switchyard, not in the request (500): the terminal running `switchyard ui` shows the trace. Please report it with that trace.",
  },
  {
    code: "ui-not-built",
    summary: "the web view's browser code is missing from this installation",
    explain:
      "`switchyard ui` and `switchyard show --html` serve a bundle built from src/ui/client. A checkout of the source must be built first (`npm run build`); an installed package always includes it.",
  },
];
