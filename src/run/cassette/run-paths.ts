// Paths into a run's folder (an agent's `patch`, a file an output names) differ between two runs
// and between attempts; a request's identity must not. Before a prompt, an input or a state is
// hashed, the run folder is written as $RUN and an attempt's folder number as aN.

const ATTEMPT = /(\$RUN\/work\/[^"\s]*?(?:\/|\.))a\d+(?=\/|-r\d|\.|"|\s|$)/g;

/** The text with the run folder written as `$RUN` and attempt numbers as `aN`, so a request is the same in every run and attempt. */
export function withoutRunPaths(text: string, runDir: string): string {
  if (!text.includes(runDir)) return text;
  return text.split(runDir).join("$RUN").replace(ATTEMPT, "$1aN");
}
