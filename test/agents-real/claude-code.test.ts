// The conformance suite (conformance.ts) against the real claude-code CLI.
import { conformanceSuite } from "./conformance.js";

conformanceSuite("claude-code");
