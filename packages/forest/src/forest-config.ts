// How a forest clusters: the join threshold, the cluster cap and the centroid size, checked once
// when a forest is made (or restored) so a bad figure fails there, not deep inside a graduation.

import { InvalidInputError } from '@agent-ledger/core';

export interface ForestConfig {
  /** Cosine similarity at or above which a graduating turn joins the nearest cluster. */
  mergeThreshold: number;
  /** Most clusters kept live; past it the closest pair is merged. */
  maxClusters: number;
  /** Terms a centroid keeps (the heaviest). */
  maxCentroidTerms: number;
}

export const DEFAULT_FOREST_CONFIG: ForestConfig = { mergeThreshold: 0.15, maxClusters: 10, maxCentroidTerms: 256 };

export function validateConfig(config: ForestConfig): void {
  if (typeof config.mergeThreshold !== 'number' || !Number.isFinite(config.mergeThreshold)) {
    throw new InvalidInputError(`mergeThreshold must be a number; got ${String(config.mergeThreshold)}.`, 'mergeThreshold');
  }
  for (const field of ['maxClusters', 'maxCentroidTerms'] as const) {
    if (!Number.isInteger(config[field]) || config[field] < 1) {
      throw new InvalidInputError(`${field} must be a whole number, 1 or more; got ${String(config[field])}.`, field);
    }
  }
}
