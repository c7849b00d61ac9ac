#!/usr/bin/env node
// Prints the one line CI counts, `N passed, N failed`, from vitest's JSON report, so a run that
// executed no test shows as 0 passed instead of passing silently.

import { readFileSync } from 'node:fs';

const file = process.argv[2];
let report;
try {
  report = JSON.parse(readFileSync(file, 'utf8'));
} catch (error) {
  console.log('0 passed, 0 failed');
  console.error(`count-tests: no readable report at ${file}: ${error.message}`);
  process.exit(1);
}
const passed = report.numPassedTests ?? 0;
// A file that fails to load has no failing test in it but must still count as a failure.
const brokenFiles = (report.testResults ?? []).filter(
  (file) => file.status === 'failed' && !(file.assertionResults ?? []).some((test) => test.status === 'failed'),
).length;
const failed = (report.numFailedTests ?? 0) + brokenFiles;
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
