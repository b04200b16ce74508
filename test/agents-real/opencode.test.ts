// The conformance suite (conformance.ts) against the real opencode CLI.
import { conformanceSuite } from "./conformance.js";

conformanceSuite("opencode");
