// Test entry (`@agent-ledger/embeddings/testing`): a loopback server that speaks the OpenAI
// embeddings API, for tests of anything that embeds (this package's, the CLI's `nexus embed`).
export type {
  EmbeddingsHandler,
  LoopbackAnswer,
  LoopbackEmbeddingsServer,
  RecordedEmbeddingsRequest,
} from './loopback-embeddings-server.ts';
export { embeddingsAnswer, startLoopbackEmbeddings } from './loopback-embeddings-server.ts';
