import { createDatabase, type PostgresInstance, startPostgres } from "@sqlload/testing";
import { BigQueryEmulator } from "@sqlload/testing/emulator/bigquery";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { BigQueryProject } from "./cli-project.js";

/**
 * What a CLI e2e file shares: one Postgres database as the source and one BigQuery emulator in
 * this process, started before the file's tests and stopped after (with the projects it made).
 */
export function postgresAndEmulator(database: string) {
  let server: PostgresInstance | undefined;
  let emulator: BigQueryEmulator | undefined;
  let src = "";
  beforeAll(async () => {
    server = await startPostgres();
    emulator = await BigQueryEmulator.start();
    src = await createDatabase(server.url, database);
  });
  afterAll(async () => {
    BigQueryProject.removeAll();
    await emulator?.stop();
    await server?.stop();
  });
  return {
    get emulator(): BigQueryEmulator {
      if (!emulator) throw new Error("the emulator starts in beforeAll");
      return emulator;
    },
    /** The source database's URL. */
    get src(): string {
      return src;
    },
    /** Runs SQL on the source; the rows of its (last) statement. */
    async sql(text: string): Promise<Record<string, unknown>[]> {
      const client = new pg.Client({ connectionString: src });
      await client.connect();
      try {
        const result = await client.query(text);
        return (Array.isArray(result) ? (result.at(-1)?.rows ?? []) : result.rows) as Record<string, unknown>[];
      } finally {
        await client.end();
      }
    },
  };
}
