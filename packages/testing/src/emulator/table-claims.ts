import { EmulatorError } from "./emulator-error.js";

/**
 * Table-level write claims of open transactions. DuckDB lets two transactions insert into one
 * table; BigQuery does not (the second concurrent mutating transaction on a table aborts), and a
 * front end that must reproduce that claims each table its statements write.
 */
export interface TableClaims {
  claim(session: number, table: string): void;
  release(session: number): void;
  /** The session holding `table`, if any. */
  holder(table: string): number | undefined;
}

export function tableClaims(): TableClaims {
  const holders = new Map<string, number>();
  return {
    claim(session, table) {
      const key = table.toLowerCase();
      const holder = holders.get(key);
      if (holder !== undefined && holder !== session) {
        throw new EmulatorError("conflict", `Transaction is aborted due to concurrent update against table ${table}.`);
      }
      holders.set(key, session);
    },
    release(session) {
      for (const [table, holder] of holders) if (holder === session) holders.delete(table);
    },
    holder: (table) => holders.get(table.toLowerCase()),
  };
}
