// The import's progress bar (cli-progress): files, lines and turns, drawn on stderr only when it is
// a terminal (CommandIo.progress is silent otherwise), so piped output and --json stay clean.

import type { ImportProgress } from '@agent-ledger/transcripts';
import type { CommandIo } from '../command.ts';
import { progressBar } from '../progress-bar.ts';

export interface ImportProgressBar {
  update(progress: ImportProgress): void;
  stop(): void;
}

export function startImportProgress(io: CommandIo): ImportProgressBar {
  const bar = progressBar(
    io,
    'importing {bar} {value}/{total} files | {lines} lines | {turns} turns | {compactions} compactions',
  );
  let started = false;
  return {
    update: (progress) => {
      const payload = { lines: progress.lines, turns: progress.turns, compactions: progress.compactions };
      if (!started) {
        started = true;
        bar.start(progress.filesTotal, progress.filesDone, payload);
      } else bar.update(progress.filesDone, payload);
    },
    stop: () => {
      if (started) bar.stop();
    },
  };
}
