// `pnpm bench:hooks`: how long Claude Code waits on nexus at each prompt. One UserPromptSubmit hook
// run, as Claude Code starts it (`sh -c` with the event on stdin: a new process that catches the
// transcript up, finds the session's latest compaction and recalls what it dropped), on sessions of
// each size, against a bare `node -e ''` and `nexus --version` timed in the same run (process start).
// Each session's transcript is written here (a compaction near its end, a fact before it), imported
// once, and then only read: a prompt's catch-up finds nothing new, as after a Stop hook.
//
//   pnpm bench:hooks [--sizes 1000,100000] [--rounds 20] [--json FILE]

import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCli } from '../build-cli.mjs';
import { median, nowMilliseconds, percentile } from './measure.ts';
import { reportProgress } from './progress.ts';
import { type BenchResult, describeMachine, formatTable, writeJsonReport } from './report.ts';
import { createTemporaryDirectory, removeTemporaryDirectory } from './temporary-files.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NEXUS = path.join(root, 'apps/cli/dist/bin/nexus.js');
const SESSION = '5eed0000-0000-4000-8000-00000000b00c';
const PROMPT = 'Which redis host does the staging cache use?';

function parseArguments(argv: string[]): { sizes: number[]; rounds: number; json?: string } {
  const options: { sizes: number[]; rounds: number; json?: string } = { sizes: [1_000, 100_000], rounds: 20 };
  for (let index = 0; index < argv.length; index += 2) {
    const [flag, value] = [argv[index], argv[index + 1]];
    if (flag === '--sizes' && value) options.sizes = value.split(',').map(Number);
    else if (flag === '--rounds' && value) options.rounds = Number(value);
    else if (flag === '--json' && value) options.json = value;
    else throw new Error(`unknown argument ${flag}: pnpm bench:hooks [--sizes 1000,100000] [--rounds 20] [--json FILE]`);
  }
  return options;
}

/** A Claude Code transcript of `turns` turns: the fact early, a compaction at nine tenths, a few turns after. */
async function writeTranscript(file: string, turns: number): Promise<void> {
  const out = createWriteStream(file);
  let parent: string | null = null;
  let time = Date.parse('2026-01-01T00:00:00.000Z');
  const base = { isSidechain: false, userType: 'external', cwd: '/w/bench', sessionId: SESSION, version: '2.1.12' };
  const words = ['schema', 'deploy', 'pgbouncer', 'retry', 'fixture', 'latency', 'index', 'migration', 'rollback', 'quota'];
  const line = async (fields: Record<string, unknown>, uuid: string) => {
    time += 1000;
    if (
      !out.write(`${JSON.stringify({ parentUuid: parent, ...base, ...fields, uuid, timestamp: new Date(time).toISOString() })}\n`)
    )
      await once(out, 'drain');
    parent = uuid;
  };
  const compactAt = Math.floor(turns * 0.9);
  for (let index = 0; index < turns; index += 1) {
    if (index === compactAt) {
      await line(
        { type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', logicalParentUuid: parent },
        `b${index}`,
      );
      await line(
        { type: 'user', isCompactSummary: true, message: { role: 'user', content: 'Earlier work: schema and deploys.' } },
        `s${index}`,
      );
    }
    const text =
      index === 7
        ? 'The staging cache is redis-quokka-7.staging.internal on port 6390.'
        : `${Array.from({ length: 14 }, (_, word) => words[(index * 7 + word * 3) % words.length]).join(' ')} #${index}.`;
    const role = index % 2 === 0 ? 'user' : 'assistant';
    await line(
      role === 'user'
        ? { type: 'user', message: { role, content: text } }
        : {
            type: 'assistant',
            message: { id: `msg_${index}`, role, model: 'claude-sonnet-4-5', content: [{ type: 'text', text }] },
          },
      `u${index}`,
    );
  }
  out.end();
  await once(out, 'finish');
}

function timed(command: string, args: string[], input?: string): { milliseconds: number; stdout: string } {
  const started = nowMilliseconds();
  const run = spawnSync(command, args, { input, encoding: 'utf8' });
  const milliseconds = nowMilliseconds() - started;
  if (run.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${run.stderr}`);
  return { milliseconds, stdout: run.stdout };
}

async function main(): Promise<void> {
  const options = parseArguments(process.argv.slice(2));
  reportProgress('building the CLI');
  await buildCli();
  const directory = createTemporaryDirectory();
  try {
    const sessions: Array<{ size: number; db: string; transcript: string }> = [];
    for (const size of options.sizes) {
      const transcript = path.join(directory, `session-${size}.jsonl`);
      const db = path.join(directory, `ledger-${size}.db`);
      reportProgress(`writing and importing a ${size.toLocaleString('en-US')}-turn session`);
      await writeTranscript(transcript, size);
      timed(process.execPath, [NEXUS, 'import', transcript, '--db', db]);
      sessions.push({ size, db, transcript });
    }
    const hook = (session: (typeof sessions)[number]) => () => {
      const command = `'${NEXUS}' hook claude-code user-prompt-submit --db '${session.db}' --log '${path.join(directory, 'hooks.log')}'`;
      const input = JSON.stringify({
        session_id: SESSION,
        transcript_path: session.transcript,
        prompt: PROMPT,
        hook_event_name: 'UserPromptSubmit',
      });
      const run = timed('sh', ['-c', command], input);
      if (!run.stdout.includes('redis-quokka-7'))
        throw new Error(`the hook did not recall the dropped fact: ${run.stdout || '(nothing)'}`);
      return run.milliseconds;
    };
    const measures: Array<{ name: string; size?: number; run: () => number }> = [
      { name: "node -e '' (bare node)", run: () => timed(process.execPath, ['-e', '']).milliseconds },
      { name: 'nexus --version (process start)', run: () => timed(process.execPath, [NEXUS, '--version']).milliseconds },
      ...sessions.map((session) => ({
        name: 'UserPromptSubmit hook, recall after compaction',
        size: session.size,
        run: hook(session),
      })),
    ];
    for (const measure of measures) measure.run(); // warm the file cache
    const samples = new Map(measures.map((measure) => [measure, [] as number[]]));
    for (let round = 1; round <= options.rounds; round += 1) {
      for (const measure of measures) samples.get(measure)?.push(measure.run());
      if (round % 5 === 0) reportProgress(`round ${round}/${options.rounds}`);
    }
    const start = median(samples.get(measures[1] as (typeof measures)[number]) ?? []);
    const results: BenchResult[] = [];
    for (const [measure, values] of samples) {
      const p50 = median(values);
      results.push({
        name: `${measure.name} p50`,
        size: measure.size,
        unit: 'ms',
        value: p50,
        baseline: start,
        ratio: p50 / start,
      });
      results.push({ name: `${measure.name} p95`, size: measure.size, unit: 'ms', value: percentile(values, 95) });
    }
    const machine = describeMachine();
    console.log(
      `UserPromptSubmit hook: ${options.rounds} interleaved rounds; baseline = nexus --version (process start) in the same run`,
    );
    console.log(`${machine.cpus.count} × ${machine.cpus.model}, ${machine.totalMemGiB} GiB, Node ${machine.node}\n`);
    console.log(formatTable(results));
    if (options.json) writeJsonReport(options.json, machine, results);
  } finally {
    removeTemporaryDirectory(directory);
  }
}

await main();
