// `switchyard ui [--state-dir D] [--port N] [--host H]`: a local web view of the state folder's
// runs (docs/ui.md), which reads like every other command and writes one thing: answers to review
// questions, with the one-time token of the address it prints. It listens on 127.0.0.1 unless told
// otherwise; another address is an explicit choice and draws a warning, since the view shows
// outputs and logs, and anyone who reaches it with the token can answer.

import { describeStore } from "../run/index.js";
import { namedStore, STORE_HELP } from "./store-option.js";
import { pullSharedLabs } from "../lab/shared-labs.js";
import { PostgresStore } from "../run/store/index.js";
import type { Command } from "commander";
import { CommandFailed, UsageError, stateDir } from "./common.js";
import { assetsBuilt, createUiServer, newWriteToken } from "../ui/index.js";

const DEFAULT_PORT = 4680;
const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

function parsePort(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n > 65535)
    throw new UsageError("usage", `--port must be a port number from 0 to 65535, got '${text}'`, {
      hint: "for example --port 4680, or --port 0 for any free port",
    });
  return n;
}

/** Adds `switchyard ui`: serves the local web view (reads, and answers review questions with the printed token). */
export function register(program: Command): void {
  program
    .command("ui")
    .description("serve a local web view of the runs, live, with a page to answer review questions (docs/ui.md)")
    .option("--state-dir <dir>", "the state folder")
    .option("--store <url>", STORE_HELP)
    .option("--port <n>", `the port (0: any free port)`, String(DEFAULT_PORT))
    .option("--host <address>", "the address to listen on", "127.0.0.1")
    .addHelpText(
      "after",
      `
Examples:
  switchyard ui                                # open the printed address (it carries the token to answer reviews)
  switchyard ui --port 0                       # any free port
  switchyard ui --host 0.0.0.0 --port 8080     # reachable from other machines (no login: warns)

The printed address ends in #token=…: a token made at each start, which the page keeps for its
tab and needs to answer review questions. Without it the pages only read.`,
    )
    .action(async (flags: { stateDir?: string; store?: string; port: string; host: string }) => {
      const port = parsePort(flags.port);
      if (!assetsBuilt())
        throw new CommandFailed("failed", "the web view's browser code is not built: run `npm run build` (or `npm install`) first");
      const dir = stateDir(flags.stateDir);
      const remote = !LOOPBACK.has(flags.host);
      if (remote) {
        process.stderr.write(
          `warning: listening on ${flags.host}: anyone who can reach it can read every run's outputs, prompts and logs (there is no login), and anyone who reaches it with the printed address's token can answer review questions\n`,
        );
      }
      const store = namedStore(flags.store, dir);
      // A shared store's labs, copied into the state folder for the labs page (as of this start).
      if (store?.kind === "postgres") {
        const pg = new PostgresStore(store.url, dir);
        try {
          pullSharedLabs(pg, dir);
        } finally {
          pg.close();
        }
      }
      // A fresh token at each start, shown only in the address printed on stdout (never on stderr or a page).
      const token = newWriteToken();
      const { server, close } = createUiServer({ stateDir: dir, store, host: flags.host, port, writes: { token, remote } });
      await new Promise<void>((done, fail) => {
        server.once("error", (err: NodeJS.ErrnoException) => {
          if (err.code === "EADDRINUSE")
            fail(
              new UsageError("usage", `port ${port} on ${flags.host} is in use`, {
                hint: "pick another with --port N, or --port 0 for any free port",
              }),
            );
          else if (err.code === "EADDRNOTAVAIL" || err.code === "ENOTFOUND")
            fail(
              new UsageError("usage", `cannot listen on ${flags.host}: no such local address`, {
                hint: "use --host 127.0.0.1 (the default)",
              }),
            );
          else fail(new CommandFailed("failed", `cannot listen on ${flags.host}:${port}: ${err.message}`));
        });
        server.listen(port, flags.host, () => done());
      });
      const addr = server.address();
      const bound = typeof addr === "object" && addr ? addr.port : port;
      const shown = flags.host.includes(":") ? `[${flags.host}]` : flags.host;
      process.stdout.write(`http://${shown}:${bound}/#token=${token}\n`);
      process.stderr.write(
        `switchyard ui: serving ${store ? describeStore(store) : dir}; open the address above as printed to answer review questions (its token is new at each start); Ctrl-C to stop\n`,
      );
      await new Promise<void>((done) => {
        const stop = () => void close().then(done);
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
      });
    });
}
