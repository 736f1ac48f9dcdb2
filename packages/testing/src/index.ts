export { createDatabase } from "./create-database.js";
export { freePort } from "./free-port.js";
export { feedIds, LOGGED_FEED_TOML, setFeedPages, writeLoggedFeed } from "./logged-feed.js";
export { type CliOptions, type CliResult, runSqlload, SQLLOAD_CLI, startSqlload } from "./run-cli.js";
export { findPostgresBinary, type PostgresInstance, type StartPostgresOptions, startPostgres } from "./start-postgres.js";
export { type RedisInstance, startRedis } from "./start-redis.js";
