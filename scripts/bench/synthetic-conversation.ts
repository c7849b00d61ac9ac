// Generates a deterministic, realistic agent conversation: alternating user/assistant turns of 40–80 words with numbers and paths, and occasional tool_use/tool_result pairs.

import type { AppendTurnInput } from '../../packages/agents-ledger/src/index.ts';
import type { ContentBlock } from '../../packages/core/src/index.ts';
import { createSeededRandom, type SeededRandom } from './seeded-random.ts';

// Word lists as strings, one space between items, so the vocabulary reads as prose.
const COMMON_WORDS = words(
  'the a we it this that should could would after before when because then still again maybe probably only every some ' +
    'most first next last with without from into over under between is was looks seems fails works runs keeps returns ' +
    'changed moved added removed checked noticed think suggest prefer need want and but or so if not also just quite ' +
    'really about around yesterday today',
);
const TECHNICAL_WORDS = words(
  'deployment cluster migration schema index query latency timeout retry cache worker queue pipeline build container ' +
    'image registry certificate endpoint gateway replica database transaction rollback release branch commit config ' +
    'variable secret token memory throughput benchmark profile handler request response payload parser compiler ' +
    'scheduler listener snapshot volume backup monitoring alert dashboard metric logging',
);
const PATHS = words(
  '/var/log/nginx/access.log /etc/postgresql/16/main/postgresql.conf src/services/billing/invoice.ts ' +
    'packages/api/src/routes/users.ts deploy/helm/values-production.yaml .github/workflows/ci.yml scripts/migrate.sh ' +
    'docker/Dockerfile.worker config/redis.conf src/lib/retry-policy.ts',
);
const IDENTIFIERS = words('retry_count max_connections HTTP_503 OOMKilled SIGTERM ECONNRESET p99 work_mem');
const TOOL_NAMES = words('read_file run_command grep list_directory');
const COMMANDS = ['kubectl get pods -n billing', 'git log --oneline -5', 'df -h /var/lib/docker', 'pnpm test --filter api'];

function words(list: string): string[] {
  return list.split(' ');
}

/** A number in one of the shapes chat about systems is full of: ports, versions, sizes, percentages. */
function numberWord(random: SeededRandom): string {
  switch (random.integer(0, 4)) {
    case 0:
      return String(random.integer(1024, 65535));
    case 1:
      return `v${random.integer(1, 4)}.${random.integer(0, 30)}.${random.integer(0, 12)}`;
    case 2:
      return `${random.integer(1, 99)}%`;
    case 3:
      return `${random.integer(1, 512)}MB`;
    default:
      return `${random.integer(0, 9)}.${random.integer(0, 99)}s`;
  }
}

function nextWord(random: SeededRandom): string {
  const roll = random.next();
  if (roll < 0.05) return numberWord(random);
  if (roll < 0.08) return random.pick(PATHS);
  if (roll < 0.1) return random.pick(IDENTIFIERS);
  if (roll < 0.4) return random.pick(TECHNICAL_WORDS);
  return random.pick(COMMON_WORDS);
}

/** Sentences of 6–16 words until `minimumWords`–`maximumWords` words are written. */
export function proseText(random: SeededRandom, minimumWords: number, maximumWords: number): string {
  const target = random.integer(minimumWords, maximumWords);
  const sentences: string[] = [];
  let written = 0;
  while (written < target) {
    const length = Math.min(random.integer(6, 16), target - written);
    const words: string[] = [];
    for (let index = 0; index < length; index += 1) words.push(nextWord(random));
    const first = words[0] ?? '';
    words[0] = first.charAt(0).toUpperCase() + first.slice(1);
    sentences.push(`${words.join(' ')}${random.chance(0.15) ? '?' : '.'}`);
    written += length;
  }
  return sentences.join(' ');
}

export interface ConversationGenerator {
  nextTurn(): AppendTurnInput;
  nextTurns(count: number): AppendTurnInput[];
}

/**
 * Exchanges of user → assistant; about one in seven is a tool exchange: user → assistant
 * (text + tool_use) → user (tool_result) → assistant. Roles therefore always alternate.
 */
export function createConversationGenerator(seed: number, startTimestamp = Date.UTC(2026, 0, 1)): ConversationGenerator {
  const random = createSeededRandom(seed);
  const pending: AppendTurnInput[] = [];
  let timestamp = startTimestamp;
  let toolCalls = 0;
  const turn = (role: 'user' | 'assistant', content: string | ContentBlock[]): AppendTurnInput => {
    timestamp += random.integer(5_000, 90_000);
    return { role, content, timestamp };
  };
  const queueExchange = (): void => {
    pending.push(turn('user', proseText(random, 40, 80)));
    if (random.chance(1 / 7)) {
      toolCalls += 1;
      const id = `toolu_bench_${toolCalls}`;
      const name = random.pick(TOOL_NAMES);
      const input = name === 'run_command' ? { command: random.pick(COMMANDS) } : { path: random.pick(PATHS) };
      pending.push(
        turn('assistant', [
          { type: 'text', text: proseText(random, 10, 25) },
          { type: 'tool_use', id, name, input },
        ]),
      );
      pending.push(turn('user', [{ type: 'tool_result', tool_use_id: id, content: proseText(random, 40, 80) }]));
    }
    pending.push(turn('assistant', proseText(random, 40, 80)));
  };
  const nextTurn = (): AppendTurnInput => {
    if (pending.length === 0) queueExchange();
    const next = pending.shift();
    if (!next) throw new Error('the conversation generator queued no turn');
    return next;
  };
  return {
    nextTurn,
    nextTurns: (count) => Array.from({ length: count }, nextTurn),
  };
}
