// The commands that use an embedding model: `nexus embed` stores a vector for every turn that has
// none for the configured model, from any OpenAI-compatible /v1/embeddings endpoint (Ollama, OpenAI,
// vLLM, text-embeddings-inference); `nexus search --semantic` ranks the stored vectors against the
// query's. The work is AgentsLedger.embedMissing / searchByMeaning and @agent-ledger/embeddings;
// this file takes the settings (flags over NEXUS_EMBEDDINGS_*, read by embedder-settings.ts), draws progress on a terminal and
// reports. Resumable: every batch is stored as it comes, so a run that stops is continued by
// running it again.

import type { EmbedMissingResult, EmbedProgress } from '@agent-ledger/agents-ledger';
import { contentText } from '@agent-ledger/core';
import { integerOption, stringOption, UsageError } from '../arguments.ts';
import type { Command, CommandInput, CommandIo } from '../command.ts';
import { requiredEmbedder } from '../embedder-settings.ts';
import type * as ProgressBarModule from '../progress-bar.ts';
import { clip } from '../render.ts';

/** Texts per request and per stored batch when --batch is not given. */
const DEFAULT_BATCH = 32;

export const embedCommand: Command = {
  path: ['embed'],
  summary: 'Store embedding vectors for the turns that have none, from an OpenAI-compatible endpoint (Ollama, OpenAI…).',
  arguments: [],
  options: {
    session: { type: 'string', description: 'only this session’s line (default: every session)', valueName: 'ID' },
    url: {
      type: 'string',
      description: 'the endpoint up to /v1 (default $NEXUS_EMBEDDINGS_URL): http://localhost:11434/v1',
      valueName: 'URL',
    },
    model: { type: 'string', description: 'the embedding model (default $NEXUS_EMBEDDINGS_MODEL)', valueName: 'NAME' },
    dimensions: {
      type: 'string',
      description: 'ask for vectors of this length (default $NEXUS_EMBEDDINGS_DIMENSIONS, else the model’s)',
      valueName: 'N',
    },
    batch: { type: 'string', description: `texts per request and per stored batch (${DEFAULT_BATCH})`, valueName: 'N' },
  },
  details: [
    'Sends the text of each turn without a vector for this model to POST {url}/embeddings and stores the vectors in',
    'the ledger, where a context with retrieval ranks turns by them beside bm25 (docs/context.md#embeddings).',
    'Vectors are stored under openai-compatible:<model>[@<dimensions>]: another model or length is embedded anew.',
    'Each batch is stored as it comes: a run that stops (a failure, Ctrl-C) keeps what it stored, and running',
    'the command again embeds the rest. The key is read from $NEXUS_EMBEDDINGS_KEY (or $OPENAI_API_KEY for',
    'api.openai.com), never from the command line. Requests time out after 30 s and are retried 3 times.',
    '',
    '  nexus embed --url http://localhost:11434/v1 --model nomic-embed-text',
    '  OPENAI_API_KEY=sk-… nexus embed --url https://api.openai.com/v1 --model text-embedding-3-small --dimensions 512',
  ].join('\n'),
  async run(input) {
    const batchSize = integerOption(input.options.batch, 'batch') ?? DEFAULT_BATCH;
    const embedder = await embedderFromCommand(
      input,
      batchSize,
      'nexus embed needs an embeddings endpoint and a model: --url http://localhost:11434/v1 --model nomic-embed-text ' +
        '(Ollama), or set $NEXUS_EMBEDDINGS_URL and $NEXUS_EMBEDDINGS_MODEL (docs/context.md#embeddings).',
    );
    const { io } = input;
    const session = stringOption(input.options.session);
    const { progressBar } = await import('../progress-bar.ts');
    const progress = startEmbedProgress(io, progressBar);
    const started = performance.now();
    let done: EmbedProgress = { embedded: 0, total: 0 };
    let result: EmbedMissingResult;
    try {
      result = await input.openLedger({ embedder }).embedMissing({
        batchSize,
        ...(session === undefined ? {} : { sessionId: session }),
        onProgress: (step) => {
          done = step;
          progress.update(step);
        },
      });
    } catch (error) {
      progress.stop();
      throw await withProgressSaid(error, done, input.commandLine('embed'));
    }
    progress.stop();
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    io.print(summaryOf(result, seconds));
    return { ...result, endpoint: embedder.endpoint, seconds };
  },
};

/** The embedder the flags and the environment describe; a usage error when one cannot be made. */
function embedderFromCommand({ options, env }: CommandInput, batchSize: number, missingAdvice: string) {
  const url = stringOption(options.url);
  const model = stringOption(options.model);
  const dimensions = integerOption(options.dimensions, 'dimensions');
  return requiredEmbedder(
    env,
    {
      ...(url === undefined ? {} : { url }),
      ...(model === undefined ? {} : { model }),
      ...(dimensions === undefined ? {} : { dimensions }),
      batchSize,
    },
    missingAdvice,
  );
}

/** An embedder failure, saying how far the run got and that running again continues from there. */
async function withProgressSaid(error: unknown, done: EmbedProgress, again: string): Promise<unknown> {
  const { EmbedderError } = await import('@agent-ledger/embeddings');
  if (!EmbedderError.isInstance(error)) return error;
  const kept =
    done.embedded === 0
      ? 'Nothing was stored.'
      : `${done.embedded} of ${done.total} turns were embedded and stored before it: \`${again}\` goes on from there.`;
  return new EmbedderError(`${error.message} ${kept}`, error.details);
}

/**
 * `nexus search --semantic`: the stored vectors nearest the query's, with the model the environment
 * names (the one `nexus embed` stored them with). Reads only; turns without a vector are counted.
 */
export async function searchByMeaningCommand(input: CommandInput, query: string): Promise<unknown> {
  const { options, io } = input;
  const others = Object.keys(options).filter((name) => !['semantic', 'session', 'limit', 'db', 'json'].includes(name));
  if (others.length > 0)
    throw new UsageError(`--semantic ranks stored vectors and takes --session and --limit only, not --${others.join(', --')}.`);
  const embedder = await embedderFromCommand(
    input,
    DEFAULT_BATCH,
    '--semantic needs the embedding model the vectors were stored with: set $NEXUS_EMBEDDINGS_URL and ' +
      '$NEXUS_EMBEDDINGS_MODEL (and $NEXUS_EMBEDDINGS_DIMENSIONS when `nexus embed` was given --dimensions).',
  );
  const session = stringOption(options.session);
  const result = await input.openLedger({ embedder }).searchByMeaning(query, {
    limit: integerOption(options.limit, 'limit') ?? 20,
    ...(session === undefined ? {} : { sessionId: session }),
  });
  const hits = result.hits.map(({ turn, similarity }) => ({
    turnId: turn.id,
    sessionId: turn.sessionId,
    role: turn.role,
    timestamp: turn.timestamp,
    similarity: Math.round(similarity * 1000) / 1000,
    snippet: clip(contentText(turn.content), 200),
  }));
  if (hits.length === 0) io.print(`no stored vector of ${result.model} to compare with`);
  for (const hit of hits) {
    const when = new Date(hit.timestamp).toISOString().slice(0, 16).replace('T', ' ');
    io.print(`${hit.turnId}  ${hit.sessionId}  ${when}  ${hit.similarity.toFixed(3)}  ${clip(hit.snippet, 100)}`);
  }
  if (result.unembedded > 0) {
    io.print(
      `${result.unembedded} turn${result.unembedded === 1 ? ' has' : 's have'} no vector of ${result.model} yet: ` +
        `\`${input.commandLine('embed')}\` (with the same settings) stores them.`,
    );
  }
  return { model: result.model, hits, unembedded: result.unembedded };
}

function summaryOf(result: EmbedMissingResult, seconds: number): string {
  const sessions = `${result.sessions} session${result.sessions === 1 ? '' : 's'}`;
  if (result.embedded === 0) return `nothing to embed: every turn of ${sessions} has a vector of ${result.model}`;
  const turns = `${result.embedded} turn${result.embedded === 1 ? '' : 's'}`;
  return `embedded ${turns} of ${sessions} with ${result.model} (${result.dimensions} dimensions) in ${seconds} s`;
}

interface EmbedProgressBar {
  update(progress: EmbedProgress): void;
  stop(): void;
}

/** A bar of turns embedded against the total (cli-progress), on stderr only when it is a terminal. */
function startEmbedProgress(io: CommandIo, progressBar: typeof ProgressBarModule.progressBar): EmbedProgressBar {
  const bar = progressBar(io, 'embedding {bar} {value}/{total} turns');
  let started = false;
  let stopped = false;
  return {
    update: ({ embedded, total }) => {
      if (stopped) return;
      if (!started) {
        started = true;
        bar.start(total, embedded);
        return;
      }
      bar.setTotal(total);
      bar.update(embedded);
    },
    stop: () => {
      if (started && !stopped) bar.stop();
      stopped = true;
    },
  };
}
