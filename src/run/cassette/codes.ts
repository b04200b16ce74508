// The codes of cassettes and `switchyard test`, part of the run layer's catalog.

import type { CodeEntry } from "../../lang/diagnostic.js";

/** The error codes of cassettes and `switchyard test`, for docs/errors.md and `explain`. */
export const CASSETTE_CODES: CodeEntry[] = [
  {
    code: "cassette-unreadable",
    summary: "the cassette file given to `switchyard test` cannot be read",
    explain:
      "`--cassette FILE` names the file `switchyard cassette RUN -o FILE` wrote. Check the path; to start one, record a real run of the pack and write its cassette, or pass `--allow-live --update` to create it from a live run.",
  },
  {
    code: "cassette-invalid",
    summary: "a line of a cassette is not what `switchyard cassette` writes",
    explain:
      "A cassette is JSON Lines: a header line, then one entry per agent turn or decision (docs/testing-playbooks.md). The message names the line. A cassette edited by hand or cut by a merge conflict is best written again from its run with `switchyard cassette RUN -o FILE`.",
  },
  {
    code: "cassette-version",
    summary: "the cassette was written in a format version this switchyard does not read",
    explain: "Write the cassette again from its run with this version of switchyard: `switchyard cassette RUN -o FILE`.",
  },
  {
    code: "cassette-miss",
    summary: "`switchyard test` met an agent turn or a decision the cassette has no answer for",
    explain:
      "The playbook changed so that this element's request (the rendered prompt and input of an agent turn; the questions, options and state of a decision) is not one the cassette recorded, or the element is new. Nothing was sent: the element fails and the test lists it with why and a short diff. If the change is intended, run `switchyard test PACK --cassette FILE --allow-live --update` to ask or run the misses for real and record them.",
  },
];
