// The conformance suite (conformance.ts) against the real codex CLI.
import { conformanceSuite } from "./conformance.js";

conformanceSuite("codex");
