// `nexus mcp --db FILE` as a child process, spoken to in raw bytes: no SDK on this side, so the
// test can send what no SDK would (lines of 60 MB, broken JSON, batches) and see every byte the
// server writes back. stdout is read as JSON-RPC lines; anything else there fails the test.

import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repository = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const BUILT_CLI = path.join(repository, 'apps/cli/dist/bin/nexus.js');

export interface JsonRpcAnswer {
  jsonrpc: string;
  id?: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

export class McpChildProcess {
  readonly answers: JsonRpcAnswer[] = [];
  /** Lines of stdout that were not JSON-RPC. */
  readonly strayLines: string[] = [];
  stderr = '';
  private readonly child: ChildProcessWithoutNullStreams;
  private pending = '';
  private readonly exited: Promise<number | null>;

  constructor(dbPath: string) {
    this.child = spawn(process.execPath, [BUILT_CLI, 'mcp', '--db', dbPath], { cwd: repository });
    this.exited = once(this.child, 'exit').then(([code]) => code as number | null);
    this.child.stdout.on('data', (chunk: Buffer) => this.read(chunk.toString('utf8')));
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
    });
  }

  /** Writes bytes as they are, waiting for the pipe to drain (a 60 MB line is written in pieces). */
  async write(bytes: string | Buffer): Promise<void> {
    if (!this.child.stdin.write(bytes)) await once(this.child.stdin, 'drain');
  }

  async send(message: unknown): Promise<void> {
    await this.write(`${JSON.stringify(message)}\n`);
  }

  /** Resolves with the answer to request `id`; rejects if the process ends first. */
  async answerTo(id: string | number, timeoutMs = 30_000): Promise<JsonRpcAnswer> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const answer = this.answers.find((candidate) => candidate.id === id);
      if (answer) return answer;
      if (this.child.exitCode !== null)
        throw new Error(`nexus mcp exited (${this.child.exitCode}) before answering ${id}: ${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`no answer to ${id} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async endInput(): Promise<number | null> {
    this.child.stdin.end();
    return this.exited;
  }

  /** SIGTERM, as an MCP client ends a server whose stdin it keeps open; resolves with the exit code. */
  async terminate(): Promise<number | null> {
    this.child.kill('SIGTERM');
    return this.exited;
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGTERM');
  }

  private read(text: string): void {
    this.pending += text;
    let newline = this.pending.indexOf('\n');
    while (newline !== -1) {
      const line = this.pending.slice(0, newline);
      this.pending = this.pending.slice(newline + 1);
      try {
        const parsed = JSON.parse(line) as JsonRpcAnswer;
        if (parsed.jsonrpc === '2.0') this.answers.push(parsed);
        else this.strayLines.push(line);
      } catch {
        this.strayLines.push(line);
      }
      newline = this.pending.indexOf('\n');
    }
  }
}
