// The `pg` driver. Its JavaScript, with its dependencies, is built into this package's bundle
// (`sqlloadBuild` in package.json): some fifty small CommonJS files otherwise read and compiled
// one by one on every run. pg-navigator.ts must stay the first import: see there.

import pgModule from "pg";
import { lentNavigator } from "./pg-navigator.js";

if (lentNavigator) delete (globalThis as { navigator?: unknown }).navigator;

export const pg = pgModule;
