export type { EmbedderSettings } from './embedder-environment.ts';
export { embedderSettingsFromEnvironment } from './embedder-environment.ts';
export { EmbedderError } from './embedder-error.ts';
export type { OfflineEmbedderOptions, SentenceEncoder } from './offline-embedder.ts';
export { createOfflineEmbedder, OFFLINE_EMBEDDER_PACKAGES, OFFLINE_MODEL_NAME } from './offline-embedder.ts';
export type { OpenAICompatibleEmbedder, OpenAICompatibleEmbedderOptions } from './openai-compatible-embedder.ts';
export { createOpenAICompatibleEmbedder, openAICompatibleModelName } from './openai-compatible-embedder.ts';
