// A cassette that cannot be read, as a person reads it: `FILE:LINE:COL: error[CODE]: message`
// and a help line; the command exits 2 (it was pointed at the wrong file).

import { CassetteError } from "../run/cassette/index.js";
import { EXIT_USAGE, setExitCode } from "./common.js";
import { forPeople } from "./words.js";

/** Runs `body`; a CassetteError is printed and sets exit status 2. */
export async function reportingCassetteErrors(body: () => Promise<void> | void): Promise<void> {
  try {
    await body();
  } catch (err) {
    if (!(err instanceof CassetteError)) throw err;
    const at = err.pos ? `${err.pos.file}:${err.pos.line}:${err.pos.col}: ` : "switchyard: ";
    process.stderr.write(`${at}error[${err.code}]: ${forPeople(err.message)}\n${err.hint ? `help: ${forPeople(err.hint)}\n` : ""}`);
    setExitCode(EXIT_USAGE);
  }
}
