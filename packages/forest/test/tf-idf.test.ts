// The local TF-IDF model and the sparse-vector maths under it: sparse unit vectors, stopwords out,
// a vocabulary that grows one document at a time, and cosines that are never NaN.

import { STOPWORDS } from '@agent-ledger/core';
import { describe, expect, it } from 'vitest';
import { cosineSimilarity, DEFAULT_FOREST_CONFIG, normalize, TfIdfModel, topicTerms, vectorNorm } from '../src/index.ts';

describe('topicTerms', () => {
  it('lower-cases words and drops stopwords, one-letter words and punctuation', () => {
    expect(topicTerms('Why is the Postgres replica lagging? I think a VACUUM is stuck!')).toEqual([
      'postgres',
      'replica',
      'lagging',
      'think',
      'vacuum',
      'stuck',
    ]);
  });

  it('keeps words joined by inner dots, hyphens and apostrophes whole', () => {
    expect(topicTerms("run pg-dump on v16.2, don't stop")).toEqual(['run', 'pg-dump', 'v16.2', 'stop']);
  });

  // STOPWORDS spells contractions with a straight apostrophe; "don’t" and "it’s" are the same words.
  it('drops contractions written with a typographic apostrophe like straight ones', () => {
    expect(topicTerms('don’t stop, it’s the replica')).toEqual(topicTerms("don't stop, it's the replica"));
  });

  it('returns no stopword for a text made of them', () => {
    const text = [...STOPWORDS].slice(0, 60).join(' ');
    expect(topicTerms(text)).toEqual([]);
    expect(topicTerms(`${text} kubelet`)).toEqual(['kubelet']);
  });
});

describe('TfIdfModel', () => {
  it('returns a sparse map holding only the terms of the text', () => {
    const model = new TfIdfModel();
    model.addDocument('postgres replica vacuum');

    const vector = model.addDocument('The stripe refund failed, the stripe webhook retried');

    expect(vector).toBeInstanceOf(Map);
    expect([...vector.keys()].sort()).toEqual(['failed', 'refund', 'retried', 'stripe', 'webhook']);
    expect([...vector.values()].every((weight) => weight > 0)).toBe(true);
    // A word said twice weighs more than a word said once with the same document frequency.
    expect(vector.get('stripe')).toBeGreaterThan(vector.get('refund') ?? 0);
  });

  it('gives an empty vector for an empty or stopword-only text', () => {
    const model = new TfIdfModel();
    expect(model.addDocument('').size).toBe(0);
    expect(model.addDocument('and the it is').size).toBe(0);
    expect(model.vectorize('').size).toBe(0);
  });

  it('counts documents and the documents each term appears in, once per document', () => {
    const model = new TfIdfModel();
    model.addDocument('postgres replica replica');
    model.addDocument('postgres vacuum');
    model.addDocument('');

    expect(model.documents).toBe(3);
    expect(model.state()).toEqual({ documentCount: 3, documentFrequency: { postgres: 2, replica: 1, vacuum: 1 } });
  });

  it('grows the vocabulary with new words but not with queries', () => {
    const model = new TfIdfModel();
    model.addDocument('postgres replica');
    const before = model.state();

    model.vectorize('kubernetes helm');
    expect(model.state()).toEqual(before);

    model.addDocument('kubernetes helm');
    expect(Object.keys(model.state().documentFrequency).sort()).toEqual(['helm', 'kubernetes', 'postgres', 'replica']);
  });

  it('weighs a rarer word above a common one', () => {
    const model = new TfIdfModel();
    model.addDocument('postgres replica');
    model.addDocument('postgres vacuum');

    expect(model.idf('replica')).toBeGreaterThan(model.idf('postgres'));
    const vector = model.vectorize('postgres replica');
    expect(vector.get('replica')).toBeGreaterThan(vector.get('postgres') ?? 0);
  });

  it('keeps a word that is in every document, so the first document is not empty', () => {
    const model = new TfIdfModel();
    expect(model.addDocument('postgres').get('postgres')).toBeGreaterThan(0);
    expect(model.addDocument('postgres').get('postgres')).toBeGreaterThan(0);
    expect(model.idf('postgres')).toBeGreaterThan(0);
  });

  it('makes unit-length vectors', () => {
    const model = new TfIdfModel();
    for (const text of ['postgres replica', 'postgres postgres vacuum wal wal wal', 'stripe']) {
      expect(vectorNorm(model.addDocument(text))).toBeCloseTo(1, 12);
    }
    expect(vectorNorm(model.vectorize('postgres and an unseen word'))).toBeCloseTo(1, 12);
  });

  it('reports each changed term once, then nothing', () => {
    const model = new TfIdfModel();
    model.addDocument('postgres replica');
    model.addDocument('postgres vacuum');

    expect(model.takeChangedTerms()).toEqual({ postgres: 2, replica: 1, vacuum: 1 });
    expect(model.takeChangedTerms()).toEqual({});
    model.addDocument('vacuum');
    expect(model.takeChangedTerms()).toEqual({ vacuum: 2 });
  });

  it('vectorizes the same way after a reload from its state', () => {
    const model = new TfIdfModel();
    model.addDocument('postgres replica');
    model.addDocument('kubernetes helm postgres');
    const reloaded = new TfIdfModel(JSON.parse(JSON.stringify(model.state())));

    expect(reloaded.vectorize('postgres helm zebra')).toEqual(model.vectorize('postgres helm zebra'));
    expect(reloaded.addDocument('helm ingress')).toEqual(model.addDocument('helm ingress'));
  });

  it('scores similar texts high and texts on different topics low', () => {
    const model = new TfIdfModel();
    const replicaLag = model.addDocument('postgres replica lag on the primary');
    const sameTopic = model.addDocument('the replica lag on postgres primary is high again');
    const otherTopic = model.addDocument('kubernetes ingress helm chart');

    const similar = cosineSimilarity(replicaLag, sameTopic);
    expect(similar).toBeGreaterThan(0.5);
    expect(similar).toBeGreaterThan(DEFAULT_FOREST_CONFIG.mergeThreshold);
    expect(cosineSimilarity(replicaLag, otherTopic)).toBe(0);
    expect(cosineSimilarity(replicaLag, replicaLag)).toBeCloseTo(1, 12);
  });
});

describe('cosineSimilarity', () => {
  it('is 0, not NaN, when either vector is empty or zero', () => {
    const real = new Map([['postgres', 1]]);
    expect(cosineSimilarity(new Map(), new Map())).toBe(0);
    expect(cosineSimilarity(new Map(), real)).toBe(0);
    expect(cosineSimilarity(real, new Map())).toBe(0);
    expect(cosineSimilarity(new Map([['postgres', 0]]), real)).toBe(0);
  });

  it('compares vectors made at different vocabulary sizes', () => {
    const model = new TfIdfModel();
    const early = model.addDocument('postgres replica');
    for (const text of ['kubernetes helm', 'stripe refund', 'react hook', 'postgres wal']) model.addDocument(text);
    const late = model.addDocument('postgres replica vacuum checkpoint');

    const similarity = cosineSimilarity(early, late);
    expect(Number.isNaN(similarity)).toBe(false);
    expect(similarity).toBeGreaterThan(0);
    expect(similarity).toBeLessThan(1);
    expect(cosineSimilarity(late, early)).toBeCloseTo(similarity, 12);
  });

  it('does not depend on the vectors’ lengths', () => {
    const left = new Map([
      ['a1', 3],
      ['b1', 4],
    ]);
    const right = new Map([['a1', 2]]);
    expect(cosineSimilarity(left, right)).toBeCloseTo(cosineSimilarity(normalize(left), normalize(right)), 12);
    expect(cosineSimilarity(left, right)).toBeCloseTo(3 / 5, 12);
  });
});

describe('normalize', () => {
  it('scales to unit length and leaves an empty or zero vector empty', () => {
    expect(
      vectorNorm(
        normalize(
          new Map([
            ['a1', 3],
            ['b1', 4],
          ]),
        ),
      ),
    ).toBeCloseTo(1, 12);
    expect(normalize(new Map()).size).toBe(0);
    expect(normalize(new Map([['a1', 0]])).size).toBe(0);
  });
});
