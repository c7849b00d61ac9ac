// The forest's centroids (parallel term-ordered arrays) against the map-based definitions they
// replace on the graduation path: the same terms, the very same weights, ties resolved the same way,
// and a query similarity a reader of the stored centroid gets to the last bit.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  centroidEntries,
  centroidOf,
  mergeCentroids,
  querySimilarity,
  scratchSimilarity,
  storedCentroid,
  TermDictionary,
} from '../src/centroid.ts';
import { keepHeaviestTerms, weightedCentroid } from '../src/index.ts';

const TERMS = ['alpha', 'beta', 'gamma', 'delta', 'eps', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'lambda', 'mu'];
// Few distinct weights, so ties at the cut are common.
const vectorArb = fc
  .uniqueArray(fc.tuple(fc.constantFrom(...TERMS), fc.constantFrom(0.125, 0.25, 0.5, 0.75, 1, 0.3)), {
    selector: (entry) => entry[0],
    maxLength: TERMS.length,
  })
  .map((entries) => new Map(entries));

describe('centroids as term-ordered arrays', () => {
  it('merge and trim exactly as keepHeaviestTerms(weightedCentroid(...)) does', () => {
    fc.assert(
      fc.property(
        vectorArb,
        vectorArb,
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 12 }),
        (left, right, leftSize, rightSize, limit) => {
          const dictionary = new TermDictionary();
          const expected = keepHeaviestTerms(
            weightedCentroid(keepHeaviestTerms(left, limit), leftSize, keepHeaviestTerms(right, limit), rightSize),
            limit,
          );
          const merged = mergeCentroids({
            left: centroidOf(left, limit, dictionary),
            leftSize,
            right: centroidOf(right, limit, dictionary),
            rightSize,
            limit,
          });
          expect(centroidEntries(merged)).toEqual([...expected]);
          expect(Array.from(merged.ids.subarray(0, merged.terms.length), (id, index) => [id, merged.terms[index]])).toEqual(
            merged.terms.map((term) => [dictionary.id(term), term]),
          );
        },
      ),
    );
  });

  it('give a query the same similarity from the forest and from the stored entries, bit for bit', () => {
    fc.assert(
      fc.property(vectorArb, vectorArb, (query, centroidVector) => {
        const dictionary = new TermDictionary();
        const centroid = centroidOf(centroidVector, 256, dictionary);
        const scratch = dictionary.scratch();
        for (const [term, weight] of query) {
          const id = dictionary.find(term);
          if (id !== undefined) scratch[id] = weight;
        }
        let norm = 0;
        for (const weight of query.values()) norm += weight * weight;
        norm = Math.sqrt(norm);
        const fromForest = scratchSimilarity(scratch, norm, centroid);
        const fromStored = querySimilarity(query, norm, storedCentroid(centroidEntries(centroid)));
        expect(Object.is(fromForest, fromStored)).toBe(true);
        expect(fromForest).toBeGreaterThanOrEqual(0);
      }),
    );
  });
});
