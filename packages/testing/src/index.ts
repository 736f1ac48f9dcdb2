export { createDatabase } from "./create-database.js";
export { findPostgresBinary, type PostgresInstance, startPostgres } from "./start-postgres.js";
