export type { Centroid } from './centroid.ts';
export { querySimilarity, storedCentroid } from './centroid.ts';
export type { ForestConfig } from './forest-config.ts';
export { DEFAULT_FOREST_CONFIG } from './forest-config.ts';
export type {
  Cluster,
  ClusterSummarizer,
  ClusterSummaryRequest,
  ForestChanges,
  ForestState,
  GraduatingTurn,
  GraduationResult,
  ResolveDirtyResult,
} from './forest-types.ts';
export type { SparseVector } from './sparse-vector.ts';
export { cosineSimilarity, keepHeaviestTerms, normalize, vectorNorm, weightedCentroid } from './sparse-vector.ts';
export type { TfIdfState } from './tf-idf.ts';
export { queryTerms, TfIdfModel, topicTerms } from './tf-idf.ts';
export { TopicForest } from './topic-forest.ts';
