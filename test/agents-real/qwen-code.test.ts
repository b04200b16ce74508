// The conformance suite (conformance.ts) against the real qwen-code CLI.
import { conformanceSuite } from "./conformance.js";

conformanceSuite("qwen-code");
