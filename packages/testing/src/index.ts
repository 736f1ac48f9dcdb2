export { createDatabase } from "./create-database.js";
export { findPostgresBinary, type PostgresInstance, type StartPostgresOptions, startPostgres } from "./start-postgres.js";
