// The conformance suite (conformance.ts) against the real gemini CLI.
import { conformanceSuite } from "./conformance.js";

conformanceSuite("gemini");
