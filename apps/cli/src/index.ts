/**
 * What a project's TypeScript module imports: `import { source, checkpoint } from "sqlload"`.
 * The command-line app itself lives in ./commands.
 */
export {
  type Checkpoint,
  type Context,
  checkpoint,
  type Row,
  source,
  type TableDefinition,
  type TableFunction,
  type TableOptions,
} from "@sqlload/connector-typescript/api";
