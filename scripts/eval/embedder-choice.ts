// The embedders `--embedder` names: the offline Universal Sentence Encoder lite (no network, its
// optional @energetic-ai packages installed in packages/embeddings), or any OpenAI-compatible
// endpoint configured as the CLI configures it (NEXUS_EMBEDDINGS_URL, _MODEL, _KEY, _DIMENSIONS).
// What the ledger does with the vectors is the ledger's; counting and caching is measured-embedder.ts.

import type { Embedder } from '../../packages/core/src/index.ts';
import {
  createOfflineEmbedder,
  createOpenAICompatibleEmbedder,
  embedderSettingsFromEnvironment,
} from '../../packages/embeddings/src/index.ts';

export const EMBEDDERS = ['offline', 'openai-compatible'] as const;
export type EmbedderName = (typeof EMBEDDERS)[number];

/** Why the named embedder cannot be made from this environment, or null when it can. */
export function embedderProblem(name: EmbedderName, env: Readonly<Record<string, string | undefined>>): string | null {
  if (name === 'offline') return null;
  const settings = embedderSettingsFromEnvironment(env);
  if (settings.baseURL === undefined || settings.model === undefined) {
    return '--embedder openai-compatible needs NEXUS_EMBEDDINGS_URL (e.g. http://localhost:11434/v1) and NEXUS_EMBEDDINGS_MODEL (NEXUS_EMBEDDINGS_KEY and NEXUS_EMBEDDINGS_DIMENSIONS if the server wants them).';
  }
  if (settings.dimensions !== undefined && !(Number.isSafeInteger(settings.dimensions) && settings.dimensions > 0)) {
    return 'NEXUS_EMBEDDINGS_DIMENSIONS must be a whole number above 0.';
  }
  return null;
}

/** The named embedder; check embedderProblem first (this throws what it would say). */
export function createEvalEmbedder(name: EmbedderName, env: Readonly<Record<string, string | undefined>>): Embedder {
  const problem = embedderProblem(name, env);
  if (problem) throw new Error(problem);
  if (name === 'offline') return createOfflineEmbedder();
  const { baseURL, model, ...rest } = embedderSettingsFromEnvironment(env);
  return createOpenAICompatibleEmbedder({ baseURL: baseURL as string, model: model as string, ...rest });
}
