// Progress on stderr, so stdout carries only the report: one line rewritten in place on a
// terminal, otherwise one line per conversation (logs stay short and readable).

import type { EvaluationProgress } from './run-evaluation.ts';

export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

export function createProgressReporter(stream: ProgressStream): {
  report: (progress: EvaluationProgress) => void;
  finish: () => void;
} {
  let lineOpen = false;
  return {
    report(progress) {
      const where = `[eval] ${progress.index}/${progress.count} ${progress.file}`;
      const seconds =
        progress.seconds === undefined ? '' : ` ${progress.failed ? 'FAILED after' : 'done in'} ${progress.seconds.toFixed(1)} s`;
      if (stream.isTTY) {
        stream.write(`\r\u001b[K${where}${progress.step === null ? seconds : `: ${progress.step}`}`);
        lineOpen = true;
      } else if (progress.step === null) {
        stream.write(`${where}${seconds}\n`);
      }
    },
    finish() {
      if (lineOpen) stream.write('\r\u001b[K');
      lineOpen = false;
    },
  };
}
