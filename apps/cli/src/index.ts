/**
 * What a project's TypeScript module imports: `import { source, checkpoint } from "sqlload"`.
 * The command-line app itself lives in ./commands.
 */
export { source, checkpoint, type Context, type TableOptions, type TableDefinition, type TableFunction, type Row, type Checkpoint } from "@sqlload/connector-typescript/api";
