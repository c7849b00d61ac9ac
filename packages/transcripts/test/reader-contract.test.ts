// The reader contract (reader-contract.ts), run for each JSONL format over the fixture its import
// test reads.

import path from 'node:path';
import { claudeCodeFormat } from '../src/formats/claude-code.ts';
import { codexFormat } from '../src/formats/codex.ts';
import { piFormat } from '../src/formats/pi.ts';
import { FIXTURES } from './helpers.ts';
import { transcriptReaderContract } from './reader-contract.ts';

transcriptReaderContract('Claude Code', {
  read: claudeCodeFormat.read,
  fixture: path.join(FIXTURES, 'claude-code', '-w-app', '5e551011-aaaa-4bbb-8ccc-000000000001.jsonl'),
});

transcriptReaderContract('Codex', {
  read: codexFormat.read,
  fixture: path.join(FIXTURES, 'codex', 'rollout-2026-05-02T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee.jsonl'),
});

transcriptReaderContract('pi', {
  read: piFormat.read,
  fixture: path.join(FIXTURES, 'pi', '2026-05-03T08-00-00-000Z_7b1f3c2e-0a4d-4e8b-9c1d-2f3a4b5c6d7e.jsonl'),
});
