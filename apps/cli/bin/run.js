#!/usr/bin/env node
import { setFlagsFromString } from "node:v8";

// A load's JavaScript heap stays small (about 10 MB) while hundreds of megabytes of socket reads pass
// through it, and V8 counts those reads' buffers against the room it leaves the heap to grow. Sized
// by its own measure of a heap that allocates little, that room is a few megabytes, so a Postgres to
// Postgres load ran a full collection every ~100 ms (about 30 in 5M rows, a third of the CLI's CPU).
// Letting the heap grow fourfold between collections, V8's own upper bound, halves them at no cost in
// peak memory (bench/README.md). This flag only changes how far the heap may grow before the next
// collection, which V8 reads each time it sets that limit, so setting it at start-up takes effect.
setFlagsFromString("--heap-growing-percent=300");

// oclif 5 asks for Node 22 but runs on Node 20, which sqlload supports.
process.env.OCLIF_DISABLE_ENGINE_WARNING = "1";
const { run } = await import("../dist/run.js");
await run(import.meta.url);
