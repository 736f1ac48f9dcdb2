export { BigQueryCatalog, type Field, type TableResource } from "./bigquery-catalog.js";
export { BigQueryEmulator } from "./bigquery-emulator.js";
export { bigqueryShapes, translateExpression } from "./bigquery-sql.js";
