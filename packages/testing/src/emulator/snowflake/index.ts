export { SnowflakeEmulator, type SnowflakeEmulatorOptions } from "./snowflake-emulator.js";
export { rewriteExpression } from "./snowflake-expressions.js";
export { snowflakeShapes } from "./snowflake-statements.js";
