import { execute } from "@oclif/core";

/**
 * Runs the command line for `bin/run.js`. It lives in dist, not in the bin, because oclif is built
 * into this package (`sqlloadBuild.inline`): one file loaded with V8's code cache instead of some
 * 200 modules resolved, read and compiled on every start, which was most of what a short command
 * cost (issue 15). `bin` is the URL of the bin, where oclif starts looking for the CLI's package.json.
 */
export async function run(bin: string): Promise<void> {
  await execute({ dir: bin });
}
