import { createRequire } from "node:module";
import { defineConnector } from "@sqlload/core";
import { chooseCommitModel } from "./databricks-commit-model.js";
import { DatabricksSession } from "./databricks-session.js";
import { parseSettings } from "./databricks-settings.js";
import { DatabricksTarget, databricksCapabilities } from "./databricks-target.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

export default defineConnector({
  manifest: {
    name: "databricks",
    version,
    description: "Databricks: Delta tables in Unity Catalog, BEGIN ATOMIC commits where the warehouse runs them.",
  },
  configSchema: {
    target: [
      {
        key: "host",
        type: "string",
        required: true,
        description: "The workspace host, e.g. adb-1234567890123456.7.azuredatabricks.net.",
      },
      {
        key: "http_path",
        type: "string",
        required: true,
        description: "The SQL warehouse's HTTP path, e.g. /sql/1.0/warehouses/abcdef1234567890.",
      },
      { key: "token", type: "string", secret: true, description: "A personal access token (or use client_id/client_secret)." },
      { key: "client_id", type: "string", description: "OAuth machine-to-machine: the service principal's application id." },
      {
        key: "client_secret",
        type: "string",
        secret: true,
        description: "OAuth machine-to-machine: the service principal's secret.",
      },
      {
        key: "catalog",
        type: "string",
        required: true,
        description: "The Unity Catalog catalog; tables land in catalog.<target schema>.",
      },
      {
        key: "volume",
        type: "string",
        description:
          'The bulk path: a Unity Catalog volume ("catalog.schema.volume" or a /Volumes/… folder) where units of `bulk_threshold` rows or more are staged as Parquet and loaded with COPY INTO.',
      },
      {
        key: "bulk_threshold",
        type: "integer",
        description:
          "With `volume`: units with fewer rows than this (default 5000) use parameterized INSERTs instead of the volume.",
      },
      {
        key: "transactions",
        type: "string",
        values: ["auto", "atomic", "none"],
        description:
          'How units commit: "atomic" (one BEGIN ATOMIC block each), "none" (data first, then the run log), "auto" (default: atomic when the warehouse runs BEGIN ATOMIC).',
      },
      { key: "port", type: "integer", description: "The warehouse's HTTPS port (default 443)." },
      {
        key: "ca_cert",
        type: "string",
        description: "A PEM file of an extra CA to trust (a TLS-inspecting proxy), relative to the project.",
      },
    ],
    table: [],
  },
  async target(context) {
    const settings = parseSettings(context.options, context.projectDir);
    const session = await DatabricksSession.open(settings);
    const commitModel = await chooseCommitModel(session, settings.transactions);
    return new DatabricksTarget(
      session,
      settings.catalog,
      commitModel,
      settings.volume ? { volume: settings.volume, threshold: settings.bulkThreshold } : undefined,
    );
  },
  // "none" and "atomic" are known before connecting, so a logged table is refused before anything
  // connects; "auto" detects the model on connecting, and the runner checks it then.
  targetCapabilities: (options) =>
    options.transactions === "none"
      ? databricksCapabilities(false)
      : options.transactions === "atomic"
        ? databricksCapabilities(true)
        : undefined,
});

export { collationWarning, commitModelNote } from "./databricks-commit-model.js";
export { DatabricksTarget } from "./databricks-target.js";
