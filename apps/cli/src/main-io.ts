// What a command may touch of the process: output, input, the environment. Its own module so
// commands (and hooks) take it without importing the entry point that dispatches to them.

export interface MainIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  stdin: NodeJS.ReadableStream;
  stderrIsTerminal: boolean;
  env: Record<string, string | undefined>;
}
