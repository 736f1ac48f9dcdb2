import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { type Column, type RecordBatch, SqlloadError } from "@sqlload/core";
import { ParquetStage } from "./databricks-parquet.js";
import type { DatabricksSession } from "./databricks-session.js";
import { copyIntoSql, listSql, MAX_FILES_PER_COPY, putSql, removeSql } from "./databricks-staging-sql.js";
import { stagedFileName } from "./databricks-volume.js";

/**
 * One unit's bulk load through a Unity Catalog volume: the rows are staged locally, written as
 * Parquet, uploaded into the table's volume folder with the driver's staging `PUT`, and loaded
 * into the unit's build table with `COPY INTO` (the commit then moves them on as it does rows
 * inserted with INSERT). `removeFiles` deletes the uploaded files once the unit is over, however
 * it ended; files a killed process left behind are swept by `sweepFolder` on the next run.
 */
export class VolumeLoad {
  private readonly unitId = randomUUID();
  private readonly uploaded: string[] = [];

  private constructor(
    private readonly session: DatabricksSession,
    private readonly folder: string,
    private readonly localDir: string,
    private readonly stage: ParquetStage,
  ) {}

  static async open(session: DatabricksSession, folder: string, columns: readonly Column[]): Promise<VolumeLoad> {
    const localDir = mkdtempSync(join(tmpdir(), "sqlload-databricks-"));
    try {
      return new VolumeLoad(session, folder, localDir, await ParquetStage.open(columns, localDir));
    } catch (error) {
      rmSync(localDir, { recursive: true, force: true });
      throw error;
    }
  }

  get rows(): number {
    return this.stage.rows;
  }

  append(batch: RecordBatch): Promise<void> {
    return this.stage.append(batch, this.stage.rows);
  }

  /** Writes, uploads and loads every staged row into `buildTable`; checks that COPY INTO took them all. */
  async loadInto(buildTable: string): Promise<void> {
    const files = await this.stage.writeFiles(this.localDir, (i) => stagedFileName(this.unitId, i));
    for (const file of files) {
      const remote = `${this.folder}/${basename(file)}`;
      this.uploaded.push(remote);
      await this.session.staging(putSql(file, remote), this.localDir);
      rmSync(file, { force: true });
    }
    let inserted = 0;
    for (let i = 0; i < files.length; i += MAX_FILES_PER_COPY) {
      const names = files.slice(i, i + MAX_FILES_PER_COPY).map((f) => basename(f));
      const result = await this.session.query(copyIntoSql(buildTable, this.folder, names));
      inserted += Number(result[0]?.num_inserted_rows ?? Number.NaN);
    }
    if (inserted !== this.stage.rows) {
      // COPY INTO skips files it loaded into the table before; the names are unique, so a
      // shortfall means the warehouse read something else than was written.
      throw new SqlloadError("SL900", `COPY INTO ${buildTable} loaded ${inserted} rows of the ${this.stage.rows} staged`);
    }
  }

  /** Deletes the unit's uploaded files and its local folder. Errors are left for the next sweep. */
  async removeFiles(): Promise<void> {
    this.stage.close();
    rmSync(this.localDir, { recursive: true, force: true });
    for (const remote of this.uploaded.splice(0)) {
      await this.session.staging(removeSql(remote), tmpdir()).catch(() => undefined);
    }
  }
}

/**
 * Removes every file in a table's volume folder. Only the run holding the table's lock stages
 * files there, and it sweeps before its first upload, so what it finds was left by a run that
 * died. A folder not made yet holds nothing to sweep.
 */
export async function sweepFolder(session: DatabricksSession, folder: string): Promise<number> {
  let rows: Awaited<ReturnType<DatabricksSession["query"]>>;
  try {
    rows = await session.query(listSql(folder));
  } catch (error) {
    if (/NOT_FOUND|NOT_EXIST|does not exist|No such file/i.test((error as Error).message ?? "")) return 0;
    throw error;
  }
  const files = rows.map((r) => String(r.path ?? "")).filter((p) => p.endsWith(".parquet"));
  for (const path of files) await session.staging(removeSql(path.replace(/^dbfs:/, "")), tmpdir());
  return files.length;
}
