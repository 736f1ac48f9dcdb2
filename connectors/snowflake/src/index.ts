import { createRequire } from "node:module";
import { defineConnector } from "@sqlload/core";
import { parseSnowflakeSettings, snowflakeTargetSettings } from "./snowflake-settings.js";
import { SnowflakeTarget } from "./snowflake-target.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

export default defineConnector({
  manifest: {
    name: "snowflake",
    version,
    description: "Snowflake: a target with one transaction per commit, text compared with COLLATE 'utf8'.",
  },
  configSchema: { target: snowflakeTargetSettings, table: [] },
  async target(context) {
    return SnowflakeTarget.open(parseSnowflakeSettings(context.options, context.projectDir));
  },
  targetCapabilities: SnowflakeTarget.capabilities,
});

export { snowflakeErrorKind } from "./errors.js";
export { codePointText, quoteIdent } from "./snowflake-dialect.js";
export { type PlanNoteInput, snowflakePlanNotes } from "./snowflake-plan-notes.js";
export type { SnowflakeAuth, SnowflakeSettings } from "./snowflake-session.js";
export { parseSnowflakeSettings } from "./snowflake-settings.js";
export { SnowflakeTarget } from "./snowflake-target.js";
export { logicalTypeOf, snowflakeTypeSql } from "./snowflake-types.js";
