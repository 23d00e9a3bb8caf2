import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    typecheck: {
      enabled: true,
      include: ["src/**/*.test-d.ts"],
      tsconfig: "./tsconfig.json",
    },
    testTimeout: 30_000,
    reporters: ["default", "json"],
    outputFile: { json: ".cache/vitest-report.json" },
    hookTimeout: 60_000,
    // Worker pools are real threads; two cores run at most two test files side by side.
    maxWorkers: 2,
  },
});
