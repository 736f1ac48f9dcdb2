import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { processAlive, SqlloadError } from "@sqlload/core";
import type { FileStore } from "./files-store.js";

interface LeaseContent {
  readonly pid: number;
  readonly host: string;
  readonly at: string;
  readonly token: string;
}

/** A lease file nobody could have finished writing for this long was left by a crash. */
const UNREADABLE_STALE_MS = 60_000;

/**
 * Holds a table against other runs with a lease file created exclusively (O_EXCL, `wx`), holding
 * the pid and host of its run. A lease whose process is gone on this host is taken over; one of
 * another host cannot be checked and blocks (SL306, retryable) until removed. Taking over goes
 * through a second exclusive file, so two runs finding the same stale lease cannot both win.
 */
export async function acquireLease(store: FileStore, path: string, label: string): Promise<{ release(): Promise<void> }> {
  const mine: LeaseContent = { pid: process.pid, host: hostname(), at: new Date().toISOString(), token: randomUUID() };
  const text = `${JSON.stringify(mine)}\n`;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await tryCreate(store, path, text)) return lease(store, path, mine.token);
    const held = await readLease(store, path);
    if (held === "missing") continue;
    if (!(await isStale(store, path, held))) throw lockedError(label, path, store, held);
    await takeOver(store, path, held);
  }
  throw new SqlloadError("SL306", `table ${label} is locked: its lease ${store.description}/${path} keeps changing`, {
    table: label,
  });
}

function lease(store: FileStore, path: string, token: string): { release(): Promise<void> } {
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      const held = await readLease(store, path);
      if (held !== "missing" && held !== "unreadable" && held.token === token) await store.delete(path);
    },
  };
}

async function tryCreate(store: FileStore, path: string, text: string): Promise<boolean> {
  try {
    await store.write(path, text, { exclusive: true, durable: true });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

async function readLease(store: FileStore, path: string): Promise<LeaseContent | "missing" | "unreadable"> {
  const bytes = await store.read(path);
  if (!bytes) return "missing";
  try {
    const content = JSON.parse(Buffer.from(bytes).toString("utf8")) as LeaseContent;
    return typeof content.pid === "number" && typeof content.token === "string" ? content : "unreadable";
  } catch {
    return "unreadable";
  }
}

async function isStale(store: FileStore, path: string, held: LeaseContent | "unreadable"): Promise<boolean> {
  if (held === "unreadable") {
    // Created but never written: its writer died between the two, or is writing it right now.
    const file = await store.stat(path);
    return !file || Date.now() - file.modified.getTime() > UNREADABLE_STALE_MS;
  }
  return held.host === hostname() && !processAlive(held.pid);
}

async function takeOver(store: FileStore, path: string, held: LeaseContent | "unreadable"): Promise<void> {
  const guard = `${path}.takeover`;
  if (!(await tryCreate(store, guard, `${JSON.stringify({ pid: process.pid, at: new Date().toISOString() })}\n`))) {
    // Another run is taking over right now, or died doing it (a takeover lasts milliseconds).
    const file = await store.stat(guard);
    if (file && Date.now() - file.modified.getTime() > UNREADABLE_STALE_MS) await store.delete(guard);
    return;
  }
  try {
    const now = await readLease(store, path);
    const same =
      now === "unreadable" ? held === "unreadable" : now !== "missing" && held !== "unreadable" && now.token === held.token;
    if (same) await store.delete(path);
  } finally {
    await store.delete(guard);
  }
}

function lockedError(label: string, path: string, store: FileStore, held: LeaseContent | "unreadable"): SqlloadError {
  const who = held === "unreadable" ? "a run that is still creating it" : `process ${held.pid} on ${held.host} since ${held.at}`;
  return new SqlloadError("SL306", `table ${label} is locked by ${who} (lease ${store.description}/${path})`, {
    table: label,
    hint:
      held !== "unreadable" && held.host !== hostname()
        ? "Wait for that run to finish. If no run is going on there, remove the lease file and run again."
        : "Wait for the other run to finish, then run again.",
  });
}
