// Fixtures a test file shares between its tests, set up by node:test hooks: registered at the
// file's top level, they run before its first test and are undone after its last.

import { after, before } from "node:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh temporary folder (named `prefix…`) handed to `use` before the tests; removed after them. */
export function withTempDir(prefix: string, use: (dir: string) => void): void {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    use(dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
}

/**
 * A local provider server whose API key is in the environment (`keyEnv` = `key`, as a machine
 * config's api_key_env reads it): the key is set and the server started before the tests, and
 * `use` gets the server (to keep it and build the provider under test); after them the server is
 * closed and the key removed.
 */
export function withKeyedServer<S extends { close(): Promise<void> }>(
  keyEnv: string,
  key: string,
  start: () => Promise<S>,
  use: (server: S) => void,
): void {
  let server: S;
  before(async () => {
    process.env[keyEnv] = key;
    server = await start();
    use(server);
  });
  after(async () => {
    await server.close();
    delete process.env[keyEnv];
  });
}
