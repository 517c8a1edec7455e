import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";

/**
 * Four projects, run one after another (`sequence.groupOrder`), each with the workers its files can bear on a
 * 2-core machine. `npm test` runs them all; `npm test -- --project unit` runs one.
 * - unit: in-process tests (a gateway on a loopback port at most, SQLite and PostgreSQL I/O): one worker per core.
 * - platforms: each platform's fake server, bot and gateway: mostly waiting on sockets, so more workers than cores.
 * - system: several processes per test (the CLI, crash and scale-out suites, the real coding agents, the packed
 *   package, benchmarks at a tiny size): heavy on CPU and timing-sensitive, so two workers.
 * - browser: Chromium through playwright-core: one at a time, as two browsers on two cores time out.
 * The global setup (one embedded PostgreSQL, the build) is the root's, so it runs once for all four.
 */
const BROWSER = [
  "test/web/answer-links-browser.test.ts",
  "test/web/browser-packaged.test.ts",
  "test/web/web-a11y.test.ts",
  "test/web/web-approval-browser.test.ts",
  "test/web/web-follow-ups.test.ts",
  "test/web/web-newcomer.test.ts",
  "test/web/web-persons-browser.test.ts",
  "test/web/web-ui.test.ts",
];
const PLATFORMS = ["test/platforms/**/*.test.ts", "test/bots/**/*.test.ts"];
const SYSTEM = ["test/system/**/*.test.ts", "test/cli/**/*.test.ts", "test/coding-agents/**/*.test.ts", "test/bench/**/*.test.ts", "test/project/package.test.ts"];

function project(name: string, groupOrder: number, maxWorkers: number, include: string[], exclude: string[] = []): TestProjectInlineConfiguration {
  return {
    extends: true,
    test: { name, include, exclude, maxWorkers, sequence: { groupOrder } },
  };
}

export default defineConfig({
  test: {
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/helpers/remove-temp-dirs.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    projects: [
      project("unit", 0, 2, ["test/**/*.test.ts"], [...BROWSER, ...PLATFORMS, ...SYSTEM]),
      project("platforms", 1, 4, PLATFORMS),
      project("system", 2, 2, SYSTEM),
      project("browser", 3, 1, BROWSER),
    ],
  },
});
