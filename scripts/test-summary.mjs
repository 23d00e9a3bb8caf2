// Prints the test totals of the last `npm test` run as one plain line: "tests: N passed, N failed".
import { readFileSync } from "node:fs";

const report = JSON.parse(readFileSync(new URL("../.cache/vitest-report.json", import.meta.url), "utf8"));
const skipped = report.numPendingTests + report.numTodoTests;
console.log(`tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ""}`);
