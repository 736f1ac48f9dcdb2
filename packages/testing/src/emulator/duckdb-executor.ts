import { type DuckDBConnection, DuckDBInstance, type DuckDBType, type DuckDBValue } from "@duckdb/node-api";
import { EmulatorError } from "./emulator-error.js";
import { type TableClaims, tableClaims } from "./table-claims.js";

/**
 * The engine behind every cloud-warehouse emulator: one real DuckDB database, and sessions on it
 * with explicit transactions. A front end (BigQuery REST, Snowflake HTTP, Databricks Thrift)
 * translates its vendor's statements into DuckDB SQL and runs them here; what the vendor forbids
 * or does differently (DDL inside a transaction, implicit commits, table-level conflicts) the front
 * end enforces with the session's transaction state and `claim`.
 */
export interface StatementResult {
  readonly columns: readonly { readonly name: string; readonly type: DuckDBType }[];
  readonly rows: readonly (readonly DuckDBValue[])[];
  /** Rows inserted, updated or deleted by a DML statement. */
  readonly rowsChanged: number;
}

export type Parameters = Readonly<Record<string, DuckDBValue>> | readonly DuckDBValue[];

/** A statement that changes the catalog (DuckDB's spelling of it: the front ends translate first). */
const CATALOG_CHANGE = /^\s*(?:CREATE|DROP|ALTER)\b/i;

export class EmulatorDatabase {
  private catalogTurn: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly instance: DuckDBInstance,
    /** Which open transaction has written which table (BigQuery aborts a second writer of one table). */
    readonly claims: TableClaims,
  ) {}

  /** A new in-memory database (or a file, to inspect after a test). Extensions never load from the network. */
  static async open(path = ":memory:"): Promise<EmulatorDatabase> {
    const instance = await DuckDBInstance.create(path, {
      autoinstall_known_extensions: "false",
      autoload_known_extensions: "false",
    });
    const database = new EmulatorDatabase(instance, tableClaims());
    // Warehouses answer in UTC; so does the emulator, whatever the machine's zone.
    await database.query("SET TimeZone = 'UTC'");
    return database;
  }

  async session(): Promise<EmulatorSession> {
    const connection = await this.instance.connect();
    await connection.run("SET TimeZone = 'UTC'");
    return new EmulatorSession(this, connection);
  }

  /** Runs one statement outside any session's transaction: for test set-up and assertions. */
  async query(sql: string, params?: Parameters): Promise<StatementResult> {
    const session = await this.session();
    try {
      return await session.run(sql, params);
    } finally {
      session.close();
    }
  }

  /**
   * Runs catalog changes made outside a transaction one at a time. The warehouses serialize them:
   * two sessions creating the same table `IF NOT EXISTS` at once both succeed, one making it. DuckDB's
   * catalog is optimistic and fails the second ("Catalog write-write conflict"), which is DuckDB's
   * behaviour, not the vendor's.
   */
  serializeCatalogChange<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.catalogTurn.then(work);
    this.catalogTurn = turn.catch(() => undefined);
    return turn;
  }

  close(): void {
    this.instance.closeSync();
  }
}

let nextSessionId = 1;

/** One client session: a DuckDB connection, and whether it holds an open transaction. */
export class EmulatorSession {
  readonly id = nextSessionId++;
  private open = false;

  constructor(
    private readonly database: EmulatorDatabase,
    private readonly connection: DuckDBConnection,
  ) {}

  get inTransaction(): boolean {
    return this.open;
  }

  async begin(): Promise<void> {
    if (this.open) throw new EmulatorError("transaction_open", "a transaction is already open in this session");
    await this.connection.run("BEGIN TRANSACTION");
    this.open = true;
  }

  async commit(): Promise<void> {
    if (!this.open) throw new EmulatorError("no_transaction", "no transaction is open in this session");
    try {
      await this.connection.run("COMMIT");
    } finally {
      this.open = false;
      this.database.claims.release(this.id);
    }
  }

  async rollback(): Promise<void> {
    if (!this.open) return;
    try {
      await this.connection.run("ROLLBACK");
    } finally {
      this.open = false;
      this.database.claims.release(this.id);
    }
  }

  /**
   * Marks `table` as written by this session's open transaction; throws `conflict` when another
   * open transaction already wrote it. Outside a transaction there is nothing to claim.
   */
  claim(table: string): void {
    if (this.open) this.database.claims.claim(this.id, table);
  }

  /** Runs one DuckDB statement in this session (inside its transaction when one is open). */
  run(sql: string, params?: Parameters): Promise<StatementResult> {
    if (!this.open && CATALOG_CHANGE.test(sql)) return this.database.serializeCatalogChange(() => this.execute(sql, params));
    return this.execute(sql, params);
  }

  private async execute(sql: string, params?: Parameters): Promise<StatementResult> {
    try {
      const reader = await this.connection.runAndReadAll(sql, params as Record<string, DuckDBValue> | DuckDBValue[] | undefined);
      const names = reader.columnNames();
      const types = reader.columnTypes();
      return {
        columns: names.map((name, i) => ({ name, type: types[i] as DuckDBType })),
        rows: reader.getRows(),
        rowsChanged: reader.rowsChanged,
      };
    } catch (error) {
      // A failed statement aborts DuckDB's transaction; the vendor's would be rolled back as well.
      if (this.open) await this.rollback().catch(() => undefined);
      throw error;
    }
  }

  close(): void {
    if (this.open) {
      this.database.claims.release(this.id);
      this.open = false;
    }
    this.connection.closeSync();
  }
}
