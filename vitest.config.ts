import { defineConfig } from "vitest/config";

// Six projects:
// - `unit`: everything but the files below; no Java, no servers.
// - `new-process` (*.new-process.test.ts): ported scenarios whose query restarts in a new process at every step
//   (`npm run test:restarts`, on the main Node version only).
// - `e2e` (*.e2e.test.ts): the web UI in Debian's chromium and the Postgres protocol through psql, which
//   scripts/e2e-deps.sh installs (`npm run test:e2e`).
// - `kafka` (*.kafka.test.ts and *.registry.test.ts): against a real broker and schema registry, which
//   src/testing/kafka-global-setup.ts and schema-registry-global-setup.ts start only when such files run.
// - `remote` (*.remote.test.ts, in src/ and examples/): Sluice on a real Spark Connect server, which
//   src/testing/spark-connect-global-setup.ts starts with scripts/spark-connect.sh unless SPARK_REMOTE names one,
//   and the Kafka broker beside it (`npm run test:remote`).
// - `faults` (*.faults.test.ts): they kill, freeze and restart the broker or registry, so they run one at a time,
//   after every other file (sequence.groupOrder runs the groups 0, 1, 2 one after the other).
// `npm test` runs unit, then kafka; .ci/run runs e2e, the restarts, remote and faults after it;
// `npx vitest run --project <name>` runs one project.
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ["default", "json"],
    outputFile: { json: ".cache/vitest-report.json" },
    // Room for the kafka project's teardown, which stops the broker and the registry (SIGTERM, a few seconds each).
    teardownTimeout: 45_000,
    // Worker pools are real threads; two cores run at most two test files side by side.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["src/**/*.test.ts", "bench/**/*.test.ts", "examples/**/*.test.ts"],
          exclude: [
            "src/**/*.kafka.test.ts",
            "src/**/*.registry.test.ts",
            "src/**/*.faults.test.ts",
            "src/**/*.new-process.test.ts",
            "src/**/*.e2e.test.ts",
            "src/**/*.remote.test.ts",
            "examples/**/*.remote.test.ts",
          ],
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
          // The ported scenarios again, each step's query in a fresh Node process on the checkpoint
          // (testing/stream-test-process.ts): a recovery check run once, on the main Node version.
          name: "new-process",
          include: ["src/**/*.new-process.test.ts"],
          testTimeout: 120_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          // Real clients against Sluice's servers: a browser on the web UI, psql on the Postgres protocol.
          name: "e2e",
          include: ["src/**/*.e2e.test.ts"],
          testTimeout: 60_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "kafka",
          include: ["src/**/*.kafka.test.ts", "src/**/*.registry.test.ts"],
          exclude: ["src/**/*.faults.test.ts"],
          globalSetup: ["src/testing/kafka-global-setup.ts", "src/testing/schema-registry-global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // One broker: files run one at a time, after the unit tests.
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          // Sluice's queries on a real Spark Connect server (scripts/spark-connect.sh, local[2]), reading and writing
          // the Kafka broker too. The global setup starts the server and runs a first query; later queries on a
          // loaded machine can still take seconds each.
          name: "remote",
          include: ["src/**/*.remote.test.ts", "examples/**/*.remote.test.ts"],
          globalSetup: ["src/testing/kafka-global-setup.ts", "src/testing/spark-connect-global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 240_000,
          // One server with two cores: files run one at a time, after the unit tests.
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: "faults",
          include: ["src/**/*.faults.test.ts"],
          globalSetup: ["src/testing/kafka-global-setup.ts", "src/testing/schema-registry-global-setup.ts"],
          // A test waits for a broker to restart (10-20 s here) and for bounded failures of several seconds.
          testTimeout: 180_000,
          hookTimeout: 180_000,
          // They stop the broker (or registry) every other such test uses: one file at a time, after everything else.
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
