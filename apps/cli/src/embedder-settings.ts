// Which embedding model a command uses: one reading of NEXUS_EMBEDDINGS_URL / _MODEL / _KEY /
// _DIMENSIONS (flags over them where a command has flags) for embed, search --semantic, serve, mcp,
// context and chat, so the vectors one command stores are the ones the others compare. The
// embeddings package is imported only when a URL or a model is set: unset, a command loads nothing
// more and calls no endpoint. Building the embedder is @agent-ledger/embeddings' job.

import { InvalidInputError } from '@agent-ledger/core';
import type { OpenAICompatibleEmbedder } from '@agent-ledger/embeddings';
import { UsageError } from './arguments.ts';

/** Settings given on the command line (`nexus embed --url … --model …`); each wins over its variable. */
export interface EmbedderFlags {
  url?: string;
  model?: string;
  dimensions?: number;
  batchSize?: number;
}

/** For --help: what the variables do to a command that builds contexts or serves them. */
export const EMBEDDINGS_ENVIRONMENT_HELP =
  'Vectors: set $NEXUS_EMBEDDINGS_URL and $NEXUS_EMBEDDINGS_MODEL (and $NEXUS_EMBEDDINGS_KEY, $NEXUS_EMBEDDINGS_DIMENSIONS ' +
  'when needed) and the hybrid context ranks turns by their vectors too, fused with bm25 (docs/context.md#embeddings); ' +
  'unset, nothing is loaded and no endpoint is called.';

/** Said by `nexus serve` and `nexus mcp` when search by meaning is asked of a ledger opened without an embedder. */
export const SERVER_WITHOUT_EMBEDDER =
  'This server was started without an embedding model: set $NEXUS_EMBEDDINGS_URL and $NEXUS_EMBEDDINGS_MODEL ' +
  '(those `nexus embed` stored the vectors with, e.g. http://localhost:11434/v1 and nomic-embed-text) and start ' +
  'it again; until then search by words.';

/**
 * The embedder the environment describes, or undefined when neither a URL nor a model is set. Half
 * a setting (a URL without a model) is a usage error: a command that silently ran without the
 * vectors its user configured would answer worse and never say why.
 */
export async function configuredEmbedder(
  env: Readonly<Record<string, string | undefined>>,
): Promise<OpenAICompatibleEmbedder | undefined> {
  const url = nonEmpty(env.NEXUS_EMBEDDINGS_URL);
  const model = nonEmpty(env.NEXUS_EMBEDDINGS_MODEL);
  if (url === undefined && model === undefined) return undefined;
  if (url === undefined || model === undefined) {
    const [set, missing] = url === undefined ? ['$NEXUS_EMBEDDINGS_MODEL', 'URL'] : ['$NEXUS_EMBEDDINGS_URL', 'MODEL'];
    throw new UsageError(
      `${set} is set but $NEXUS_EMBEDDINGS_${missing} is not: set both to rank by vectors (docs/context.md#embeddings), or neither.`,
    );
  }
  return requiredEmbedder(env, {}, '');
}

/** The embedder the flags and the environment describe; a usage error saying `missingAdvice` when they name none. */
export async function requiredEmbedder(
  env: Readonly<Record<string, string | undefined>>,
  flags: EmbedderFlags,
  missingAdvice: string,
): Promise<OpenAICompatibleEmbedder> {
  const { createOpenAICompatibleEmbedder, embedderSettingsFromEnvironment } = await import('@agent-ledger/embeddings');
  const settings = embedderSettingsFromEnvironment(env, {
    ...(flags.url === undefined ? {} : { baseURL: flags.url }),
    ...(flags.model === undefined ? {} : { model: flags.model }),
    ...(flags.dimensions === undefined ? {} : { dimensions: flags.dimensions }),
    ...(flags.batchSize === undefined ? {} : { batchSize: flags.batchSize }),
  });
  if (settings.baseURL === undefined || settings.model === undefined) throw new UsageError(missingAdvice);
  try {
    return createOpenAICompatibleEmbedder({ ...settings, baseURL: settings.baseURL, model: settings.model });
  } catch (error) {
    if (!InvalidInputError.isInstance(error)) throw error;
    throw new UsageError(inCommandTerms(error.message, flags));
  }
}

/** The embedder's field names as the flag or the variable that set each. */
function inCommandTerms(message: string, flags: EmbedderFlags): string {
  const names: Record<string, string> = {
    baseURL: flags.url === undefined ? '$NEXUS_EMBEDDINGS_URL' : '--url',
    model: flags.model === undefined ? '$NEXUS_EMBEDDINGS_MODEL' : '--model',
    dimensions: flags.dimensions === undefined ? '$NEXUS_EMBEDDINGS_DIMENSIONS' : '--dimensions',
    batchSize: '--batch',
  };
  // The package says "The embeddings base URL …" or "The embedder's <field> must be …": only that
  // field is renamed (the sentence may name a model again: "the name of an embedding model").
  return message
    .replace(/^The embeddings base URL\b/, names.baseURL as string)
    .replace(/^The embedder's (\w+)/, (_match, field: string) => `The embedder's ${names[field] ?? field}`);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
