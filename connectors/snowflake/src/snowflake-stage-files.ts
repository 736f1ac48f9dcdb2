import { createWriteStream, mkdtempSync, readdirSync, rmSync, type WriteStream } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { finished } from "node:stream/promises";
import { createGzip, type Gzip } from "node:zlib";
import { processAlive, type TargetTableRef } from "@sqlload/core";
import { checkCopy, checkPut, copySql, MAX_FILES_PER_COPY, putSql } from "./snowflake-copy.js";
import { csvRecord } from "./snowflake-csv.js";
import type { SnowflakeSession } from "./snowflake-session.js";
import type { StageRow } from "./snowflake-stage.js";

/**
 * Uncompressed CSV bytes per file. Snowflake loads files of 100–250 MB compressed best and spreads
 * a COPY's files over the warehouse's threads; CSV of this kind compresses 3–6×.
 */
export const FILE_BYTES = 256 * 1024 * 1024;

const PREFIX = "sqlload-snowflake-";

/** Records are written to the compressor in chunks of about this many characters, not one by one. */
const CHUNK_CHARS = 1 << 20;

interface OpenFile {
  readonly name: string;
  readonly path: string;
  readonly gzip: Gzip;
  readonly done: Promise<void>;
  bytes: number;
}

/**
 * A unit's bulk path: its stage rows written as gzip CSV files in a local folder of this process,
 * each PUT to the stage table's table stage once full, then one COPY INTO (per 1,000 files) that
 * loads them all. File names carry the unit's token, so no two units (and no retry of one) share a
 * name. The folder is removed when the unit ends; folders of processes that died are removed by
 * the next unit that opens one.
 */
export class StageFiles {
  private readonly dir: string;
  private readonly uploaded: string[] = [];
  private current: OpenFile | undefined;

  constructor(
    private readonly session: SnowflakeSession,
    private readonly stage: TargetTableRef,
    private readonly token: string,
    private readonly fileBytes = FILE_BYTES,
  ) {
    sweepDeadFolders();
    this.dir = mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
  }

  /** Appends rows to the open file, PUTting each file once it is full. */
  async add(rows: readonly StageRow[]): Promise<void> {
    let chunk = "";
    for (const row of rows) {
      if (this.current && this.current.bytes >= this.fileBytes) {
        await this.write(chunk);
        chunk = "";
        await this.put();
      }
      const file = this.current ?? this.open();
      const record = csvRecord(row);
      // UTF-16 length: close enough to the bytes for sizing files, and free.
      file.bytes += record.length;
      chunk += record;
      if (chunk.length >= CHUNK_CHARS) {
        await this.write(chunk);
        chunk = "";
      }
    }
    await this.write(chunk);
  }

  /** PUTs the last file and loads every file into the stage table, checking that every row arrived. */
  async load(expectedRows: number): Promise<void> {
    if (this.current) await this.put();
    let loaded = 0;
    for (let i = 0; i < this.uploaded.length; i += MAX_FILES_PER_COPY) {
      const files = this.uploaded.slice(i, i + MAX_FILES_PER_COPY);
      loaded += checkCopy(await this.session.run(copySql(this.stage, files)), files);
    }
    if (loaded !== expectedRows) {
      throw new Error(`COPY INTO ${this.stage.name} loaded ${loaded} rows where ${expectedRows} were written`);
    }
  }

  /** Removes the local folder (the stage's files go with the temporary stage table). */
  remove(): void {
    this.current?.gzip.destroy();
    this.current = undefined;
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Writes to the open file, waiting while the compressor is behind. */
  private async write(chunk: string): Promise<void> {
    const gzip = this.current?.gzip;
    if (!gzip || chunk.length === 0) return;
    if (!gzip.write(chunk)) await new Promise<void>((resolve) => gzip.once("drain", () => resolve()));
  }

  private open(): OpenFile {
    const name = `${this.token}_${this.uploaded.length + 1}.csv.gz`;
    const path = join(this.dir, name);
    const gzip = createGzip();
    const out: WriteStream = createWriteStream(path);
    gzip.pipe(out);
    this.current = { name, path, gzip, done: finished(out), bytes: 0 };
    return this.current;
  }

  private async put(): Promise<void> {
    const file = this.current as OpenFile;
    this.current = undefined;
    file.gzip.end();
    await file.done;
    checkPut(await this.session.run(putSql(file.path, this.stage)), file.name);
    rmSync(file.path, { force: true });
    this.uploaded.push(file.name);
  }
}

/** Removes the folders that processes no longer running left behind (a run killed mid-unit). */
function sweepDeadFolders(): void {
  let entries: string[];
  try {
    entries = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const entry of entries) {
    const pid = Number(/^sqlload-snowflake-(\d+)-/.exec(entry)?.[1]);
    if (!pid || pid === process.pid || processAlive(pid)) continue;
    rmSync(join(tmpdir(), entry), { recursive: true, force: true });
  }
}
