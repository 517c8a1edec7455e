/** A vitest setup file: each test file's temp folders (test/helpers/temp-dirs.ts) go when the file ends. */
import { afterAll } from "vitest";
import { removeTempDirs } from "./temp-dirs.ts";

// Registered before the file's own hooks, so it runs after them (vitest runs after-hooks last-registered first).
afterAll(() => removeTempDirs(), 120_000);
