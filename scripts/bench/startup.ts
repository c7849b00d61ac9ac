// `pnpm bench:startup`: how long the built `nexus` takes to start and answer, as a hook or an MCP
// client starts it (a new process each time), against a bare `node -e ''` timed in the same run.
// The commands are run in turn, round after round (interleaved, so a busy moment of the machine
// falls on all of them), and each row reports the median wall time and the median peak RSS (from
// GNU time's %M where it is installed). Sizes: `search` on ledgers of each --sizes turns.
//
//   pnpm bench:startup [--rounds 15] [--sizes 1000,10000] [--json FILE]

import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { buildCli } from '../build-cli.mjs';
import { buildHistory } from './build-history.ts';
import { median, nowMilliseconds } from './measure.ts';
import { reportProgress } from './progress.ts';
import { type BenchResult, describeMachine, formatTable, writeJsonReport } from './report.ts';
import { createTemporaryDirectory, removeTemporaryDirectory } from './temporary-files.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NEXUS = path.join(root, 'apps/cli/dist/bin/nexus.js');
const GNU_TIME = '/usr/bin/time';
const SEARCH_WORD = 'pgbouncer';

interface StartupCommand {
  name: string;
  size?: number;
  /** Times one run; resolves with wall milliseconds and peak RSS in kB (NaN when unknown). */
  run(): Promise<{ milliseconds: number; peakKilobytes: number }>;
}

function parseArguments(argv: string[]): { rounds: number; sizes: number[]; json?: string } {
  const options: { rounds: number; sizes: number[]; json?: string } = { rounds: 15, sizes: [1_000, 10_000] };
  for (let index = 0; index < argv.length; index += 1) {
    const [flag, value] = [argv[index], argv[index + 1]];
    if (flag === '--rounds' && value) options.rounds = Number(value);
    else if (flag === '--sizes' && value) options.sizes = value.split(',').map(Number);
    else if (flag === '--json' && value) options.json = value;
    else if (flag === '--quick') options.rounds = 5;
    else
      throw new Error(`unknown argument ${flag}: pnpm bench:startup [--rounds N] [--sizes 1000,10000] [--json FILE] [--quick]`);
    if (flag !== '--quick') index += 1;
  }
  return options;
}

/** A process run to its end: wall time around it, peak RSS from GNU time when it is there. */
function processCommand(name: string, argv: string[], size?: number): StartupCommand {
  const measured = existsSync(GNU_TIME);
  return {
    name,
    size,
    run: async () => {
      const command = measured ? GNU_TIME : (argv[0] as string);
      const args = measured ? ['-f', '%M', ...argv] : argv.slice(1);
      const started = nowMilliseconds();
      const result = spawnSync(command, args, { encoding: 'utf8', env: { ...process.env, NEXUS_DB: '' } });
      const milliseconds = nowMilliseconds() - started;
      if (result.status !== 0) throw new Error(`${argv.join(' ')} failed: ${result.stderr}`);
      const peak = measured ? Number(result.stderr.trim().split('\n').at(-1)) : Number.NaN;
      return { milliseconds, peakKilobytes: peak };
    },
  };
}

/** `nexus mcp` as an MCP client starts it: from spawn to the answer to `initialize`. */
function mcpConnect(database: string): StartupCommand {
  return {
    name: 'nexus mcp: spawn to initialize answered',
    run: async () => {
      const started = nowMilliseconds();
      const child = spawn(process.execPath, [NEXUS, 'mcp', '--db', database], { stdio: ['pipe', 'pipe', 'ignore'] });
      const lines = createInterface({ input: child.stdout });
      const answered = new Promise<void>((resolve) => lines.once('line', () => resolve()));
      child.stdin.write(
        `${JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
        })}\n`,
      );
      await answered;
      const milliseconds = nowMilliseconds() - started;
      child.stdin.end();
      await new Promise((resolve) => child.once('exit', resolve));
      return { milliseconds, peakKilobytes: Number.NaN };
    },
  };
}

async function ledgerOf(directory: string, turns: number): Promise<string> {
  const file = path.join(directory, `startup-${turns}.db`);
  const history = await buildHistory({ path: file, turns, seed: 20261126, quiet: true });
  await history.ledger.close();
  return file;
}

async function main(): Promise<void> {
  const options = parseArguments(process.argv.slice(2));
  reportProgress('building the CLI (scripts/build-cli.mjs)');
  await buildCli();
  const directory = createTemporaryDirectory();
  try {
    const small = await ledgerOf(directory, 100);
    const sized = new Map<number, string>();
    for (const size of options.sizes) {
      reportProgress(`building a ${size.toLocaleString('en-US')}-turn ledger`);
      sized.set(size, await ledgerOf(directory, size));
    }
    const node = process.execPath;
    const commands: StartupCommand[] = [
      processCommand("node -e '' (baseline)", [node, '-e', '']),
      processCommand('nexus --help', [node, NEXUS, '--help']),
      processCommand('nexus --version', [node, NEXUS, '--version']),
      processCommand('nexus session list (100 turns)', [node, NEXUS, 'session', 'list', '--db', small]),
      ...[...sized].map(([size, file]) =>
        processCommand('nexus search', [node, NEXUS, 'search', SEARCH_WORD, '--db', file], size),
      ),
      mcpConnect(small),
    ];
    const samples = new Map<StartupCommand, { milliseconds: number[]; peaks: number[] }>(
      commands.map((command) => [command, { milliseconds: [], peaks: [] }]),
    );
    for (const command of commands) await command.run(); // warm the file cache; not reported
    for (let round = 1; round <= options.rounds; round += 1) {
      for (const command of commands) {
        const { milliseconds, peakKilobytes } = await command.run();
        const sample = samples.get(command);
        sample?.milliseconds.push(milliseconds);
        if (Number.isFinite(peakKilobytes)) sample?.peaks.push(peakKilobytes);
      }
      if (round % 5 === 0) reportProgress(`round ${round}/${options.rounds}`);
    }
    const bare = median(samples.get(commands[0] as StartupCommand)?.milliseconds ?? []);
    const bareRss = median(samples.get(commands[0] as StartupCommand)?.peaks ?? []);
    const results: BenchResult[] = [];
    for (const [command, sample] of samples) {
      const wall = median(sample.milliseconds);
      results.push({
        name: `${command.name} p50`,
        size: command.size,
        unit: 'ms',
        value: wall,
        baseline: bare,
        ratio: wall / bare,
      });
      if (sample.peaks.length > 0) {
        const rss = median(sample.peaks) / 1024;
        results.push({
          name: `${command.name} peak RSS`,
          size: command.size,
          unit: 'MB',
          value: rss,
          baseline: bareRss / 1024,
          ratio: rss / (bareRss / 1024),
        });
      }
    }
    const machine = describeMachine();
    console.log(`nexus start-up: ${options.rounds} interleaved rounds, medians; baseline = node -e '' in the same run`);
    console.log(`${machine.cpus.count} × ${machine.cpus.model}, ${machine.totalMemGiB} GiB, Node ${machine.node}\n`);
    console.log(formatTable(results));
    if (options.json) writeJsonReport(options.json, machine, results);
  } finally {
    removeTemporaryDirectory(directory);
  }
}

await main();
