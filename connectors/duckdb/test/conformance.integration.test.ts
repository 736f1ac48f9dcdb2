import { describeSourceConformance, describeTargetConformance } from "@sqlload/conformance";
import { afterAll } from "vitest";
import { duckdbSourceHarness, duckdbTargetHarness } from "./conformance-harness.js";

const target = duckdbTargetHarness();
const source = duckdbSourceHarness();
afterAll(() => Promise.all([target.close(), source.close()]));

describeTargetConformance("duckdb", target);
describeSourceConformance("duckdb", source);
