import { defineConfig } from "vitest/config";

// Two projects: `unit` (everything but Kafka, no Java needed) and `kafka` (files named *.kafka.test.ts, run
// against a real broker that src/testing/kafka-global-setup.ts starts only when such files are in the run).
// `npm test` runs both, unit first; `npx vitest run --project unit` or `--project kafka` runs one.
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ["default", "json"],
    outputFile: { json: ".cache/vitest-report.json" },
    // Room for the kafka project's teardown, which stops the broker (SIGTERM, a few seconds).
    teardownTimeout: 45_000,
    // Worker pools are real threads; two cores run at most two test files side by side.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["src/**/*.test.ts", "bench/**/*.test.ts"],
          exclude: ["src/**/*.kafka.test.ts"],
          typecheck: {
            enabled: true,
            include: ["src/**/*.test-d.ts"],
            tsconfig: "./tsconfig.json",
          },
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "kafka",
          include: ["src/**/*.kafka.test.ts"],
          globalSetup: ["src/testing/kafka-global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // One broker: files run one at a time, after the unit tests.
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
