// A cli-progress bar drawn through CommandIo.progress: on stderr only when it is a terminal (the
// io's progress is silent otherwise), so piped output and --json stay clean.

import cliProgress from 'cli-progress';
import type { CommandIo } from './command.ts';

export function progressBar(io: CommandIo, format: string): cliProgress.SingleBar {
  // cli-progress writes escape codes to a stream; this one forwards them to io.progress.
  const stream = {
    isTTY: true,
    columns: process.stderr.columns || 100,
    write: (text: string) => {
      io.progress(text);
      return true;
    },
  } as unknown as NodeJS.WritableStream;
  return new cliProgress.SingleBar(
    { stream, format, barsize: 20, hideCursor: false, clearOnComplete: false, fps: 5 },
    cliProgress.Presets.shades_classic,
  );
}
