import { createRequire } from "node:module";
import type * as Snowflake from "snowflake-sdk";

let driver: typeof Snowflake | undefined;

/**
 * snowflake-sdk, loaded on first use. Loading it loads the AWS SDK (which the driver needs only
 * for S3 stages, which sqlload does not use), and that prints a Node-version warning on every
 * sqlload run on Node 20 unless told not to; a user who set the variable keeps their choice.
 */
export function snowflakeDriver(): typeof Snowflake {
  if (!driver) {
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
    driver = createRequire(import.meta.url)("snowflake-sdk") as typeof Snowflake;
    // The driver logs to a file and the console by default; sqlload reports errors itself.
    driver.configure({ logLevel: "OFF" });
  }
  return driver;
}
