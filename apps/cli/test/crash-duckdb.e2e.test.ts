import { describeCrashSuite } from "./crash-suite.js";

describeCrashSuite("duckdb", 0);
