#!/usr/bin/env node

// Writes a synthetic Claude Code session file of N lines (default 1,000,000) for measuring the
// importer's memory: user prompts, replies streamed as two lines (text, then a tool_use) sharing a
// message.id, tool results, progress lines, and a compact_boundary + summary every 50,000 lines.
// Not committed data: write it under /tmp.
// Usage: node scripts/synthetic-claude-transcript.mjs /tmp/big.jsonl [lines]
// Then:  /usr/bin/time -v pnpm nexus import /tmp/big.jsonl --db /tmp/big.db   (Maximum resident set size)

import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

const [file, count = '1000000'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node scripts/synthetic-claude-transcript.mjs FILE [lines]');
  process.exit(2);
}
const total = Number(count);
const sessionId = '0bada55e-1111-4222-8333-000000000016';
const base = { isSidechain: false, userType: 'external', cwd: '/w/big', sessionId, version: '2.1.12', gitBranch: 'main' };
const out = createWriteStream(file);
let written = 0;
let parent = null;
let time = Date.parse('2026-01-01T00:00:00.000Z');
const words = ['schema', 'deploy', 'pgbouncer', 'retry', 'fixture', 'latency', 'index', 'migration', 'cache', 'rollback'];
const sentence = (n) => `${Array.from({ length: 12 }, (_, index) => words[(n * 7 + index * 3) % words.length]).join(' ')} #${n}.`;

async function line(fields) {
  const uuid = `u${written}`;
  time += 1000;
  const record = { parentUuid: parent, ...base, ...fields, uuid, timestamp: new Date(time).toISOString() };
  if (!out.write(`${JSON.stringify(record)}\n`)) await once(out, 'drain');
  written += 1;
  parent = uuid;
  return uuid;
}

for (let round = 0; written < total; round += 1) {
  if (round > 0 && round % 10_000 === 0) {
    const last = parent;
    parent = null;
    await line({
      type: 'system',
      subtype: 'compact_boundary',
      content: 'Conversation compacted',
      level: 'info',
      logicalParentUuid: last,
      compactMetadata: { trigger: 'auto', preTokens: 160000 },
    });
    await line({
      type: 'user',
      isCompactSummary: true,
      message: { role: 'user', content: `This session is being continued… Summary of rounds up to ${round}: ${sentence(round)}` },
    });
    continue;
  }
  await line({ type: 'user', message: { role: 'user', content: sentence(round) } });
  const id = `msg_${round}`;
  await line({
    type: 'assistant',
    requestId: `req_${round}`,
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: sentence(round + 1) }],
    },
  });
  await line({
    type: 'assistant',
    requestId: `req_${round}`,
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [
        { type: 'tool_use', id: `toolu_${round}`, name: 'Bash', input: { command: `grep -rn ${words[round % 10]} src` } },
      ],
    },
  });
  await line({ type: 'progress', data: { type: 'bash_progress' } });
  await line({
    type: 'user',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${round}`, content: sentence(round + 2) }] },
  });
}
out.end();
await once(out, 'finish');
console.error(`wrote ${written} lines to ${file}`);
