#!/usr/bin/env node
// oclif 5 asks for Node 22 but runs on Node 20, which sqlload supports.
process.env.OCLIF_DISABLE_ENGINE_WARNING = "1";
const { execute } = await import("@oclif/core");
await execute({ dir: import.meta.url });
