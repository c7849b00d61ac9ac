// Union-find topics on the command line, against a real database file: `session create`, `compact`
// and `import` with --strategy, `topics`, `find`, `expand`, `drop-topic` (and --undo),
// `context --query`, and `doctor` on the result. The conversation is fixtures/three-topics.json:
// three topics that share no words (kubernetes, sourdough, guitar), interleaved two messages at a
// time, then two closing messages on none of them.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempFolder } from './run-cli.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/three-topics.json', import.meta.url));
const MESSAGES = (JSON.parse(readFileSync(FIXTURE, 'utf8')) as { messages: Array<{ id: string; role: string; content: string }> })
  .messages;

/** Message ids of the fixture by topic; m19 and m20 are on none and stay raw. */
const THEMES = {
  kubernetes: ['m1', 'm2', 'm7', 'm8', 'm13', 'm14'],
  sourdough: ['m3', 'm4', 'm9', 'm10', 'm15', 'm16'],
  guitar: ['m5', 'm6', 'm11', 'm12', 'm17', 'm18'],
} as const;
type Theme = keyof typeof THEMES;
const QUERIES: Record<Theme, string> = {
  kubernetes: 'kubernetes helm ingress pods',
  sourdough: 'sourdough starter flour loaf',
  guitar: 'guitar chords capo fretboard',
};

interface SessionOut {
  id: string;
  headTurnId: string | null;
  compactionStrategy: string | null;
}
interface TurnOut {
  id: string;
  turnType: 'normal' | 'compaction';
  strategy?: string;
}
interface CompactionOut extends TurnOut {
  summarizedThroughTurnId: string;
  firstKeptTurnId: string | null;
  tokensBefore: number;
  tokensAfter: number;
  metadata: { topics?: Array<{ id: string; summaryVersion: number; members: number }> };
}
interface TopicOut {
  id: string;
  members: number;
  tokens: number;
  memberTokens: number;
  summary: string | null;
  dirty: boolean;
  dropped: boolean;
  compactionId: string;
}
interface FoundOut {
  turnId: string;
  clusterId: string | null;
  compactionId: string | null;
}
interface ContextOut {
  system: string;
  tokens: number;
  messages: Array<{ role: string }>;
  compactionTurnId: string | null;
  topics: Array<{ id: string; members: number; tokens: number; similarity: number | null; linesLeftOut: number }>;
  omittedTopicIds: string[];
}
interface ErrorOut {
  error: { code: string; message: string };
}

let temp: ReturnType<typeof tempFolder>;
/** The main session: the fixture appended turn by turn, then `compact --strategy union-find --json`. */
let sessionId: string;
let turnIds: Record<string, string>;
/** The last appended turn (m20): raw, and just before the compaction turn. */
let head: string;
/** The session's head after compacting: the compaction turn itself, where contexts are built. */
let sessionHead: string;
let compactRun: Awaited<ReturnType<typeof runCli>>;
let compaction: CompactionOut;
/** Topic id by theme, from `find` on the theme's first message. */
const topicOf = {} as Record<Theme, string>;

/** Runs a command against the test database and expects it to succeed. */
async function ok(argv: string[]): Promise<Awaited<ReturnType<typeof runCli>>> {
  const run = await runCli([...argv, '--db', temp.dbPath]);
  expect(run.code, `${argv.join(' ')}: ${run.stderr}`).toBe(0);
  return run;
}

async function json<T>(argv: string[]): Promise<T> {
  return (await ok([...argv, '--json'])).json() as T;
}

/** Runs a command with --json that must fail with exit 1; returns its error object. */
async function failure(argv: string[]): Promise<{ error: ErrorOut['error']; stderr: string }> {
  const run = await runCli([...argv, '--db', temp.dbPath, '--json']);
  expect(run.code, `${argv.join(' ')}: ${run.stdout}`).toBe(1);
  expect(run.stderr).toMatch(/^nexus: /);
  expect(run.stderr.trim().split('\n')).toHaveLength(1);
  return { error: (run.json() as ErrorOut).error, stderr: run.stderr };
}

/** A session holding the fixture's messages as turns (nothing compacted), keeping ~40 tokens raw. */
async function sessionWithFixture(): Promise<{ sessionId: string; turnIds: Record<string, string>; head: string }> {
  const session = await json<SessionOut>(['session', 'create', '--keep', '40']);
  const ids: Record<string, string> = {};
  let last = '';
  for (const message of MESSAGES) {
    const turn = await json<TurnOut>([
      'turn',
      'append',
      session.id,
      '--role',
      message.role,
      '--text',
      message.content,
      ...(last ? ['--expect-head', last] : []),
    ]);
    ids[message.id] = turn.id;
    last = turn.id;
  }
  return { sessionId: session.id, turnIds: ids, head: last };
}

async function sessionCount(): Promise<number> {
  return (await json<SessionOut[]>(['session', 'list', '--limit', '1000'])).length;
}

beforeAll(async () => {
  temp = tempFolder();
  ({ sessionId, turnIds, head } = await sessionWithFixture());
  compactRun = await runCli(['compact', sessionId, '--strategy', 'union-find', '--db', temp.dbPath, '--json']);
  compaction = compactRun.json() as CompactionOut;
  sessionHead = compaction.id;
});

afterAll(() => temp?.cleanup());

describe('nexus session create --strategy', () => {
  it('records union-find as the session’s compaction strategy', async () => {
    const created = await json<SessionOut>(['session', 'create', '--strategy', 'union-find', '--label', 'uf']);
    expect(created.id).toMatch(/^s_/);
    expect(created.compactionStrategy).toBe('union-find');
    expect((await json<SessionOut>(['session', 'show', created.id])).compactionStrategy).toBe('union-find');
    expect((await ok(['session', 'show', created.id])).stdout).toMatch(/^strategy\s+union-find$/m);

    const plain = await json<SessionOut>(['session', 'create']);
    expect(plain.compactionStrategy).toBeNull();
    const flat = await json<SessionOut>(['session', 'create', '--strategy', 'flat']);
    expect(flat.compactionStrategy).toBe('flat');
  });

  it('refuses an unknown strategy with INVALID_INPUT naming the known ones, and writes no session', async () => {
    const before = await sessionCount();
    const { error } = await failure(['session', 'create', '--strategy', 'nope']);
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain('"nope"');
    expect(error.message).toContain('flat');
    expect(error.message).toContain('union-find');
    expect(await sessionCount()).toBe(before);
  });

  it('refuses an unknown strategy in compact and import too', async () => {
    const before = await sessionCount();
    const compacted = await failure(['compact', sessionId, '--strategy', 'nope']);
    expect(compacted.error.code).toBe('INVALID_INPUT');
    expect(compacted.error.message).toContain('union-find');
    const imported = await failure(['import', FIXTURE, '--strategy', 'nope']);
    expect(imported.error.code).toBe('INVALID_INPUT');
    expect(imported.error.message).toContain('union-find');
    expect(await sessionCount()).toBe(before);
    // Nothing was compacted by the failed call: the head is still the union-find compaction's line.
    expect((await json<SessionOut>(['session', 'show', sessionId])).headTurnId).toBe(compaction.id);
  });
});

describe('nexus compact --strategy union-find', () => {
  it('writes a union-find compaction whose metadata lists the three topics', () => {
    expect(compactRun.code, compactRun.stderr).toBe(0);
    expect(compaction.turnType).toBe('compaction');
    expect(compaction.strategy).toBe('union-find');
    // keep 40 leaves the two closing messages raw; every topic message is summarized.
    expect(compaction.summarizedThroughTurnId).toBe(turnIds.m18);
    expect(compaction.firstKeptTurnId).toBe(turnIds.m19);
    expect(compaction.tokensAfter).toBeLessThan(compaction.tokensBefore);
    const topics = compaction.metadata.topics;
    expect(Array.isArray(topics)).toBe(true);
    expect(topics).toHaveLength(3);
    for (const topic of topics ?? []) {
      expect(topic).toEqual({ id: expect.stringMatching(/^t_/), summaryVersion: expect.any(Number), members: 6 });
    }
    expect(new Set(topics?.map((topic) => topic.id)).size).toBe(3);
  });

  it('says how many topics it made and how to list them', async () => {
    const other = await sessionWithFixture();
    const run = await ok(['compact', other.sessionId, '--strategy', 'union-find']);
    expect(run.stdout).toMatch(/^compaction t_\S+: summarized through /m);
    expect(run.stdout).toContain('(union-find, extractive summarizer)');
    // The hint works when pasted: it names the database this run used.
    expect(run.stdout).toMatch(new RegExp(`3 topics; \`nexus topics ${other.sessionId} --db \\S+\` lists them`));
    const flat = await sessionWithFixture();
    const flatRun = await ok(['compact', flat.sessionId]);
    expect(flatRun.stdout).toContain('(flat, extractive summarizer)');
    expect(flatRun.stdout).not.toContain('topics');
  });
});

describe('nexus topics', () => {
  it('--json lists every topic with its id, members, tokens, summary, dirty and dropped', async () => {
    const topics = await json<TopicOut[]>(['topics', sessionId]);
    expect(Array.isArray(topics)).toBe(true);
    expect(topics.map((topic) => topic.id)).toEqual(compaction.metadata.topics?.map((topic) => topic.id));
    for (const topic of topics) {
      for (const key of ['id', 'members', 'tokens', 'summary', 'dirty', 'dropped']) expect(topic).toHaveProperty(key);
      expect(topic.id).toMatch(/^t_/);
      expect(Number.isInteger(topic.members)).toBe(true);
      expect(topic.members).toBe(6);
      expect(Number.isInteger(topic.tokens)).toBe(true);
      expect(topic.tokens).toBeGreaterThan(0);
      expect(topic.summary === null || typeof topic.summary === 'string').toBe(true);
      expect(typeof topic.dirty).toBe('boolean');
      expect(topic.dropped).toBe(false);
      expect(topic.compactionId).toBe(compaction.id);
    }
  });

  it('prints one line per topic, starting with its id', async () => {
    const topics = await json<TopicOut[]>(['topics', sessionId]);
    const lines = (await ok(['topics', sessionId])).stdout.trim().split('\n');
    expect(lines).toHaveLength(topics.length);
    topics.forEach((topic, index) => {
      expect(lines[index]).toMatch(new RegExp(`^${topic.id}\\s+${topic.members} turns\\s+${topic.tokens} tokens`));
    });
  });

  it('says there are none for a session without a union-find compaction', async () => {
    const empty = await json<SessionOut>(['session', 'create', '--strategy', 'union-find']);
    expect(await json<TopicOut[]>(['topics', empty.id])).toEqual([]);
    expect((await ok(['topics', empty.id])).stdout).toMatch(/^no topics/);
    // Compacted by flat: no topics, and `find` names the compaction but no topic.
    const flat = await sessionWithFixture();
    const flatCompaction = await json<CompactionOut>(['compact', flat.sessionId]);
    expect(flatCompaction.strategy).toBe('flat');
    expect(flatCompaction.metadata.topics).toBeUndefined();
    expect(await json<TopicOut[]>(['topics', flat.sessionId])).toEqual([]);
    const first = flat.turnIds.m1 as string;
    expect(await json<FoundOut>(['find', first])).toEqual({ turnId: first, clusterId: null, compactionId: flatCompaction.id });
    expect((await ok(['find', first])).stdout).toContain(`summarized by compaction ${flatCompaction.id}, not in any topic`);
    const expanded = await failure(['expand', first]);
    expect(expanded.error.code).toBe('CLUSTER_NOT_FOUND');
    expect(expanded.error.message).toContain('no union-find compaction');
    expect((await failure(['drop-topic', first])).error.code).toBe('CLUSTER_NOT_FOUND');
    const missing = await failure(['topics', 's_nope']);
    expect(missing.error.code).toBe('SESSION_NOT_FOUND');
  });
});

describe('nexus find', () => {
  it('puts the turns of one theme in one topic, and the three themes in the three topics', async () => {
    const topicIds = (await json<TopicOut[]>(['topics', sessionId])).map((topic) => topic.id);
    for (const [theme, messageIds] of Object.entries(THEMES) as Array<[Theme, readonly string[]]>) {
      const clusters = new Set<string | null>();
      for (const messageId of messageIds) {
        const found = await json<FoundOut>(['find', turnIds[messageId] as string]);
        expect(Object.keys(found).sort()).toEqual(['clusterId', 'compactionId', 'turnId']);
        expect(found.turnId).toBe(turnIds[messageId]);
        expect(found.compactionId).toBe(compaction.id);
        clusters.add(found.clusterId);
      }
      expect(clusters.size, theme).toBe(1);
      const [clusterId] = [...clusters];
      expect(topicIds).toContain(clusterId);
      topicOf[theme] = clusterId as string;
    }
    expect(new Set(Object.values(topicOf)).size).toBe(3);
  });

  it('gives null for a raw turn, and says so in text', async () => {
    expect(await json<FoundOut>(['find', head])).toEqual({ turnId: head, clusterId: null, compactionId: null });
    expect((await ok(['find', head])).stdout).toContain(`${head} is not summarized by any compaction on this line yet`);
    const summarized = turnIds.m5 as string;
    expect((await ok(['find', summarized])).stdout).toContain(
      `${summarized} is in topic ${topicOf.guitar} (compaction ${compaction.id})`,
    );
    expect((await failure(['find', 't_nope'])).error.code).toBe('TURN_NOT_FOUND');
  });
});

describe('nexus expand', () => {
  it('lists the turns of a topic, oldest first, including the turn find placed in it', async () => {
    const turns = await json<TurnOut[]>(['expand', topicOf.guitar]);
    expect(Array.isArray(turns)).toBe(true);
    expect(turns.map((turn) => turn.id)).toEqual(THEMES.guitar.map((messageId) => turnIds[messageId]));
    expect(turns.every((turn) => turn.turnType === 'normal')).toBe(true);
    const found = await json<FoundOut>(['find', turnIds.m11 as string]);
    expect(found.clusterId).toBe(topicOf.guitar);
    expect(turns.map((turn) => turn.id)).toContain(found.turnId);
    const lines = (await ok(['expand', topicOf.guitar])).stdout.trim().split('\n');
    expect(lines.map((line) => line.split(/\s+/)[0])).toEqual(turns.map((turn) => turn.id));
  });

  it('refuses a member that is not the root with CLUSTER_NOT_FOUND naming the root', async () => {
    const member = THEMES.sourdough.map((messageId) => turnIds[messageId] as string).find((id) => id !== topicOf.sourdough);
    expect(member).toBeDefined();
    const { error, stderr } = await failure(['expand', member as string]);
    expect(error.code).toBe('CLUSTER_NOT_FOUND');
    expect(error.message).toContain(member);
    expect(error.message).toContain(`member of topic ${topicOf.sourdough}`);
    expect(stderr).toContain(topicOf.sourdough);
  });

  it('refuses an unknown id, and a raw turn that is in no topic', async () => {
    const unknown = await failure(['expand', 't_nope']);
    expect(unknown.error.code).toBe('CLUSTER_NOT_FOUND');
    expect(unknown.error.message).toContain('t_nope');
    const raw = await failure(['expand', head]);
    expect(raw.error.code).toBe('CLUSTER_NOT_FOUND');
    expect(raw.error.message).toContain('not in this forest');
  });
});

describe('nexus context --query', () => {
  it('scores every topic against the query; the queried topic scores highest', async () => {
    for (const theme of Object.keys(THEMES) as Theme[]) {
      const built = await json<ContextOut>(['context', sessionHead, '--query', QUERIES[theme]]);
      expect(built.compactionTurnId).toBe(compaction.id);
      expect(built.topics).toHaveLength(3);
      const best = [...built.topics].sort((left, right) => (right.similarity ?? 0) - (left.similarity ?? 0))[0];
      expect(best?.id, theme).toBe(topicOf[theme]);
      expect(best?.similarity).toBeGreaterThan(0);
      for (const topic of built.topics) if (topic.id !== best?.id) expect(topic.similarity).toBeLessThan(best?.similarity ?? 0);
    }
    // Whatever the query, the injected topics read in stable root order (the order of `nexus topics`),
    // not by similarity: topics[0] is the queried topic only when the others are left out.
    const rootOrder = (await json<TopicOut[]>(['topics', sessionId])).map((topic) => topic.id);
    const guitar = await json<ContextOut>(['context', sessionHead, '--query', QUERIES.guitar]);
    expect(guitar.topics.map((topic) => topic.id)).toEqual(rootOrder);
    // Without a query there is no similarity.
    const plain = await json<ContextOut>(['context', sessionHead]);
    expect(plain.topics.map((topic) => topic.similarity)).toEqual([null, null, null]);
  });

  it('with a --budget that holds one topic, injects the queried one first and stays within the budget', async () => {
    for (const theme of Object.keys(THEMES) as Theme[]) {
      const built = await json<ContextOut>(['context', sessionHead, '--query', QUERIES[theme], '--budget', '200']);
      expect(built.tokens).toBeLessThanOrEqual(200);
      expect(built.topics[0]?.id, theme).toBe(topicOf[theme]);
      expect(built.system).toContain(`[topic ${topicOf[theme]} `);
      expect(built.omittedTopicIds.length).toBeGreaterThan(0);
      expect(built.omittedTopicIds).not.toContain(topicOf[theme]);
    }
    const text = await ok(['context', sessionHead, '--query', QUERIES.guitar, '--budget', '200']);
    expect(text.stdout).toMatch(new RegExp(`^── topics: ${topicOf.guitar} \\(similarity 0\\.\\d\\d\\); left out to fit: `, 'm'));
  });
});

describe('nexus context --budget with less room than the topics', () => {
  it('shows topics by their best lines and says how many lines each left out, in JSON and in text', async () => {
    let trimmedSeen = 0;
    for (const budget of [150, 200, 250, 300, 400]) {
      const built = await json<ContextOut>(['context', sessionHead, '--budget', String(budget)]);
      expect(built.tokens).toBeLessThanOrEqual(budget);
      const text = (await ok(['context', sessionHead, '--budget', String(budget)])).stdout;
      for (const topic of built.topics) {
        if (topic.linesLeftOut === 0) continue;
        trimmedSeen += 1;
        const lines = `${topic.linesLeftOut} line${topic.linesLeftOut === 1 ? '' : 's'}`;
        expect(text).toMatch(new RegExp(`^── topics: .*${topic.id} \\(${lines} left out\\)`, 'm'));
        expect(built.system).toMatch(
          new RegExp(`^\\[topic ${topic.id} .* · ${topic.linesLeftOut} more lines? by expanding\\]$`, 'm'),
        );
      }
    }
    expect(trimmedSeen).toBeGreaterThan(0);
  });
});

describe('nexus drop-topic', () => {
  it('drops a topic out of the context, and --undo brings it back', async () => {
    const dropped = await json<TopicOut>(['drop-topic', topicOf.sourdough]);
    expect(dropped.id).toBe(topicOf.sourdough);
    expect(dropped.dropped).toBe(true);
    expect(dropped.members).toBe(6);

    const without = await json<ContextOut>(['context', sessionHead]);
    expect(without.topics.map((topic) => topic.id)).not.toContain(topicOf.sourdough);
    expect(without.topics.map((topic) => topic.id).sort()).toEqual([topicOf.kubernetes, topicOf.guitar].sort());
    expect(without.omittedTopicIds).not.toContain(topicOf.sourdough);
    expect(without.system).not.toContain(topicOf.sourdough);
    expect(without.system).not.toMatch(/sourdough/i);
    // Even when the query asks for it.
    const asked = await json<ContextOut>(['context', sessionHead, '--query', QUERIES.sourdough]);
    expect(asked.topics.map((topic) => topic.id)).not.toContain(topicOf.sourdough);

    const listed = await json<TopicOut[]>(['topics', sessionId]);
    expect(listed.find((topic) => topic.id === topicOf.sourdough)?.dropped).toBe(true);
    expect((await ok(['topics', sessionId])).stdout).toMatch(new RegExp(`^${topicOf.sourdough} .*\\[dropped\\]`, 'm'));
    // Nothing is deleted: the topic still expands, and dropping it twice changes nothing.
    expect(await json<TurnOut[]>(['expand', topicOf.sourdough])).toHaveLength(6);
    expect((await json<TopicOut>(['drop-topic', topicOf.sourdough])).dropped).toBe(true);

    const restored = await json<TopicOut>(['drop-topic', topicOf.sourdough, '--undo']);
    expect(restored.id).toBe(topicOf.sourdough);
    expect(restored.dropped).toBe(false);
    const back = await json<ContextOut>(['context', sessionHead]);
    expect(back.topics.map((topic) => topic.id)).toContain(topicOf.sourdough);
    expect(back.system).toContain(topicOf.sourdough);
    expect((await json<TopicOut[]>(['topics', sessionId])).every((topic) => !topic.dropped)).toBe(true);
  });

  it('says what it did in text, and refuses a member that is not a root', async () => {
    expect((await ok(['drop-topic', topicOf.guitar])).stdout).toMatch(
      new RegExp(`^topic ${topicOf.guitar} dropped \\(6 turns, `),
    );
    expect((await ok(['drop-topic', topicOf.guitar, '--undo'])).stdout).toMatch(
      new RegExp(`^topic ${topicOf.guitar} restored \\(6 turns, `),
    );
    const member = turnIds.m14 as string;
    expect(member).not.toBe(topicOf.kubernetes);
    const { error } = await failure(['drop-topic', member]);
    expect(error.code).toBe('CLUSTER_NOT_FOUND');
    expect(error.message).toContain(topicOf.kubernetes);
    expect((await failure(['drop-topic', 't_nope'])).error.code).toBe('CLUSTER_NOT_FOUND');
  });
});

describe('nexus import --strategy union-find', () => {
  it('records the strategy on the session and compacts into topics', async () => {
    const result = await json<{
      sessionId: string;
      headTurnId: string;
      turns: number;
      compactions: number;
      turnIds: Record<string, string>;
    }>(['import', FIXTURE, '--strategy', 'union-find', '--context-window', '400', '--reserve', '60', '--keep', '80']);
    expect(result.turns).toBe(MESSAGES.length);
    // One or two compactions, by the length of the random ids in the summaries; the compaction below adds one more.
    expect(result.compactions).toBeGreaterThanOrEqual(1);
    const session = await json<SessionOut>(['session', 'show', result.sessionId]);
    expect(session.compactionStrategy).toBe('union-find');

    const history = await json<TurnOut[]>(['history', result.headTurnId]);
    const compactions = history.filter((turn) => turn.turnType === 'compaction');
    expect(compactions).toHaveLength(result.compactions);
    expect(compactions.every((turn) => turn.strategy === 'union-find')).toBe(true);

    const topics = await json<TopicOut[]>(['topics', result.sessionId]);
    expect(topics.length).toBeGreaterThan(0);
    expect(topics).toHaveLength(3);
    expect(topics.every((topic) => topic.compactionId === compactions.at(-1)?.id)).toBe(true);

    // A later compaction without --strategy uses the session's, and grows the same forest: new
    // guitar turns join the guitar topic of the import.
    const guitarTopic = (await json<FoundOut>(['find', result.turnIds.m5 as string])).clusterId;
    expect(topics.map((topic) => topic.id)).toContain(guitarTopic);
    const added: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const text = `Which guitar strings and capo suit open chords on the fretboard for folk song ${index}? `.repeat(4);
      added.push((await json<TurnOut>(['turn', 'append', result.sessionId, '--text', text])).id);
    }
    const again = await json<CompactionOut>(['compact', result.sessionId]);
    expect(again.strategy).toBe('union-find');
    expect((await json<FoundOut>(['find', added[0] as string])).clusterId).toBe(guitarTopic);
    expect((await json<TopicOut[]>(['topics', result.sessionId])).every((topic) => topic.compactionId === again.id)).toBe(true);
  });
});

describe('nexus doctor after all of it', () => {
  it('finds no problem: { ok: true, problems: [] }, exit 0', async () => {
    expect(await json(['doctor'])).toEqual({ ok: true, problems: [] });
    expect((await ok(['doctor'])).stdout).toMatch(/^ok: .*topic forests/);
  });
});

describe('help for the topic commands', () => {
  it('has --help for topics, expand, find and drop-topic, and for the new options', async () => {
    const expected: Array<[string[], string, string[]]> = [
      [['topics'], 'Usage: nexus topics <sessionId>', []],
      [['expand'], 'Usage: nexus expand <clusterId>', ['--session']],
      [['find'], 'Usage: nexus find <turnId>', ['--session']],
      [['drop-topic'], 'Usage: nexus drop-topic <clusterId>', ['--session', '--undo']],
      [['context'], 'Usage: nexus context <turnId|sessionId>', ['--query']],
      [['compact'], 'Usage: nexus compact <sessionId>', ['--strategy']],
      [['session', 'create'], 'Usage: nexus session create', ['--strategy']],
      [['import'], 'Usage: nexus import <file>', ['--strategy']],
    ];
    for (const [command, usage, options] of expected) {
      const run = await runCli([...command, '--help']);
      expect(run.code, command.join(' ')).toBe(0);
      expect(run.stdout).toContain(usage);
      for (const option of options) expect(run.stdout, command.join(' ')).toContain(option);
    }
    const general = await runCli(['--help']);
    for (const name of ['topics', 'expand', 'find', 'drop-topic']) expect(general.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
  });
});
