// The web view's one HTML page. The browser code and its styles are built from src/ui/client by
// `npm run build` (scripts/build-ui.mjs, into dist/ui-assets) and read from there; the server
// links them, a `show --html` file inlines them with the run's data, so it needs nothing else.

import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { EmbeddedRun } from "./api-types.js";
import { escapeHtml } from "../lab/report-html.js";

const ASSETS = fileURLToPath(new URL("../../ui-assets/", import.meta.url));

/** The built browser code and styles. */
export interface Assets {
  js: string;
  css: string;
}

let cached: Assets | undefined;

/** The built client; a clear message when the build step has not run. */
export function loadAssets(): Assets {
  if (cached) return cached;
  const js = `${ASSETS}app.js`;
  const css = `${ASSETS}app.css`;
  if (!existsSync(js) || !existsSync(css)) {
    throw new Error(`the web view's browser code is not built (${js} is missing): run \`npm run build\``);
  }
  cached = { js: readFileSync(js, "utf8"), css: readFileSync(css, "utf8") };
  return cached;
}

/** Whether the browser code has been built (`npm run build`); `switchyard ui` refuses to start without it. */
export function assetsBuilt(): boolean {
  return existsSync(`${ASSETS}app.js`) && existsSync(`${ASSETS}app.css`);
}

/** Inline <script>/<style> text can hold anything but its own closing tag. */
function inlineSafe(text: string, tag: "script" | "style"): string {
  return text.replace(new RegExp(`</${tag}`, "gi"), `<\\/${tag}`);
}

/** JSON in a <script type="application/json">: `<` escaped, so no tag can end it early. */
function embedJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** Content-Security-Policy of the served page: nothing but this server, no inline script. */
export const SERVED_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
/** Of a `show --html` file: inline code and styles only; no request can leave the page. */
const EMBEDDED_CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/** The HTML page the server serves; it loads the built assets from /assets. */
export function servedPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>switchyard</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/assets/app.css"></head>
<body><div id="app"></div><script type="module" src="/assets/app.js"></script></body></html>
`;
}

/** A page with the assets and one run's data inlined, under a CSP that allows nothing from outside. */
export function embeddedPage(data: EmbeddedRun, assets: Assets = loadAssets()): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${EMBEDDED_CSP}"><link rel="icon" href="data:,">
<title>switchyard run ${escapeHtml(data.run.run)} (${escapeHtml(data.run.playbook)})</title><style>${inlineSafe(assets.css, "style")}</style></head>
<body><div id="app"></div>
<script type="application/json" id="switchyard-data">${embedJson(data)}</script>
<script type="module">${inlineSafe(assets.js, "script")}</script></body></html>
`;
}
