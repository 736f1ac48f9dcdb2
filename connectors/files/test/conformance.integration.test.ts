import { describeSourceConformance, describeTargetConformance } from "@sqlload/conformance";
import { afterAll } from "vitest";
import { filesSourceHarness, filesTargetHarness } from "./conformance-harness.js";

const target = filesTargetHarness();
const source = filesSourceHarness();
afterAll(() => Promise.all([target.close(), source.close()]));

describeTargetConformance("files", target);
describeSourceConformance("files", source);
