// The import's progress bar (cli-progress): files, lines and turns, drawn on stderr only when it is
// a terminal (CommandIo.progress is silent otherwise), so piped output and --json stay clean.

import type { ImportProgress } from '@nexus/transcripts';
import cliProgress from 'cli-progress';
import type { CommandIo } from '../command.ts';

export interface ImportProgressBar {
  update(progress: ImportProgress): void;
  stop(): void;
}

export function startImportProgress(io: CommandIo): ImportProgressBar {
  // cli-progress writes escape codes to a stream; this one forwards them to io.progress.
  const stream = {
    isTTY: true,
    columns: process.stderr.columns || 100,
    write: (text: string) => {
      io.progress(text);
      return true;
    },
  } as unknown as NodeJS.WritableStream;
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: 'importing {bar} {value}/{total} files | {lines} lines | {turns} turns | {compactions} compactions',
      barsize: 20,
      hideCursor: false,
      clearOnComplete: false,
      fps: 5,
    },
    cliProgress.Presets.shades_classic,
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
