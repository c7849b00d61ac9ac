// The embedder settings a program takes from its environment, so the CLI, a server and a script
// configure the same endpoint the same way: NEXUS_EMBEDDINGS_URL, NEXUS_EMBEDDINGS_MODEL,
// NEXUS_EMBEDDINGS_KEY (OPENAI_API_KEY when the URL is OpenAI's own API) and
// NEXUS_EMBEDDINGS_DIMENSIONS. Values given explicitly (command-line flags) win over the environment.

import { isOpenAIEndpoint } from './endpoint-url.ts';
import type { OpenAICompatibleEmbedderOptions } from './openai-compatible-embedder.ts';

export type EmbedderSettings = Partial<
  Pick<OpenAICompatibleEmbedderOptions, 'baseURL' | 'model' | 'apiKey' | 'dimensions' | 'batchSize'>
>;

/**
 * The settings `given` completes from `env`. `baseURL` or `model` may still be missing (the caller
 * says how to give them); `dimensions` from the environment is a number only when it is one.
 */
export function embedderSettingsFromEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  given: EmbedderSettings = {},
): EmbedderSettings {
  const baseURL = given.baseURL ?? nonEmpty(env.NEXUS_EMBEDDINGS_URL);
  const model = given.model ?? nonEmpty(env.NEXUS_EMBEDDINGS_MODEL);
  // OpenAI's key is used for OpenAI only: sending it to any other server would hand it over.
  const apiKey =
    given.apiKey ??
    nonEmpty(env.NEXUS_EMBEDDINGS_KEY) ??
    (baseURL !== undefined && isOpenAIEndpoint(baseURL) ? nonEmpty(env.OPENAI_API_KEY) : undefined);
  const dimensionsText = nonEmpty(env.NEXUS_EMBEDDINGS_DIMENSIONS);
  const dimensions = given.dimensions ?? (dimensionsText === undefined ? undefined : Number(dimensionsText));
  return {
    ...(baseURL === undefined ? {} : { baseURL }),
    ...(model === undefined ? {} : { model }),
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(dimensions === undefined ? {} : { dimensions }),
    ...(given.batchSize === undefined ? {} : { batchSize: given.batchSize }),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
