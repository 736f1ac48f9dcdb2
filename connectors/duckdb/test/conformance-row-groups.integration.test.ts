import { describeTargetConformance } from "@sqlload/conformance";
import { afterAll } from "vitest";
import { duckdbTargetHarness } from "./conformance-harness.js";

// `row_group_size` attaches the file to an in-memory instance instead of opening it (see
// duckdb-database.ts): the whole target contract again in that mode, with row groups of one vector
// so every multi-chunk case crosses row groups.
const target = duckdbTargetHarness({ row_group_size: 2048 });
afterAll(() => target.close());

describeTargetConformance("duckdb (row_group_size = 2048)", target);
