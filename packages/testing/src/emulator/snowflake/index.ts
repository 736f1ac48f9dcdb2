export { rewriteExpression } from "./snowflake-expressions.js";
export { SnowflakeEmulator, type SnowflakeEmulatorOptions } from "./snowflake-emulator.js";
export { snowflakeShapes } from "./snowflake-statements.js";
