// A fresh PostgreSQL database per test file, on the server $SWITCHYARD_TEST_PG points at (CI
// starts a throw-away cluster and sets it; without it the PostgreSQL tests are skipped).

import pg from "pg";

export const TEST_PG = process.env.SWITCHYARD_TEST_PG;

/** `{ skip }` for node:test when no test server is configured. */
export const pgSkip = TEST_PG ? {} : { skip: "SWITCHYARD_TEST_PG is not set (no PostgreSQL test server)" };

export interface TestDatabase {
  url: string;
  drop: () => Promise<void>;
}

export async function freshDatabase(prefix = "sy"): Promise<TestDatabase> {
  if (!TEST_PG) throw new Error("SWITCHYARD_TEST_PG is not set");
  const name = `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: TEST_PG });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(TEST_PG);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const a = new pg.Client({ connectionString: TEST_PG });
      await a.connect();
      await a.query(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}
