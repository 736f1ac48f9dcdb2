import { describeSourceConformance, describeTargetConformance } from "@sqlload/conformance";
import { afterAll } from "vitest";
import { postgresSourceHarness, postgresTargetHarness } from "./conformance-harness.js";

const target = postgresTargetHarness();
const source = postgresSourceHarness();
afterAll(() => Promise.all([target.close(), source.close()]));

describeTargetConformance("postgres", target);
describeSourceConformance("postgres", source);
