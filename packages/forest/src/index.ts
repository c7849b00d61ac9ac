export type { Centroid } from './centroid.ts';
export { querySimilarity, storedCentroid } from './centroid.ts';
export type { SparseVector } from './sparse-vector.ts';
export { cosineSimilarity, keepHeaviestTerms, normalize, vectorNorm, weightedCentroid } from './sparse-vector.ts';
export type { TfIdfState } from './tf-idf.ts';
export { queryTerms, TfIdfModel, topicTerms } from './tf-idf.ts';
export type {
  Cluster,
  ClusterSummarizer,
  ClusterSummaryRequest,
  ForestChanges,
  ForestConfig,
  ForestState,
  GraduatingTurn,
  GraduationResult,
  ResolveDirtyResult,
} from './topic-forest.ts';
export { DEFAULT_FOREST_CONFIG, TopicForest } from './topic-forest.ts';
