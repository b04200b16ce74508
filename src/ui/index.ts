// The web view: `switchyard ui`'s server and `show --html`'s self-contained file.
export { createUiServer, type UiServerOptions } from "./server.js";
export { runHtml } from "./embed.js";
export { assetsBuilt } from "./page.js";
export { newWriteToken, type WriteAccess } from "./write-guard.js";
