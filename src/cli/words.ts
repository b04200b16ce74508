// Words for people at the terminal: the rule-id citations left out of messages. The function
// lives in src/shared/words.ts, where the web view uses it too.

export { forPeople, RULE_ID } from "../shared/words.js";
