import { describeCrashSuite } from "./crash-suite.js";

describeCrashSuite("postgres", 100);
