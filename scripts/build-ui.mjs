// Builds the web view's browser code (src/ui/client) into dist/ui-assets/app.js and app.css:
// type-checks it against the DOM (its own tsconfig), then bundles it with esbuild into one ES
// module and one stylesheet, which the server serves and `show --html` inlines. Run by
// `npm run build` and `prepare`, so a fresh `npm install` has them.
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const check = spawnSync(process.execPath, [tsc, "-p", "src/ui/client"], { stdio: "inherit" });
if (check.status !== 0) process.exit(check.status ?? 1);
await build({
  entryPoints: { app: "src/ui/client/main.ts" },
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  legalComments: "none",
  outdir: "dist/ui-assets",
  logLevel: "warning",
});
