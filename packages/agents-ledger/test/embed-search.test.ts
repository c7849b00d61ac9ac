// AgentsLedger.searchByMeaning: stored vectors ranked by cosine similarity to the query's, over
// every session or one session's line. It only reads (a read-only ledger answers), and counts the
// turns not embedded yet instead of embedding them.

import { type Embedder, InvalidInputError, sequentialIds } from '@agent-ledger/core';
import { afterEach, describe, expect, it } from 'vitest';
import { openAgentsLedger } from '../src/index.ts';
import { assistantTurn, openTempLedger, type TempLedger, userTurn } from './builders.ts';

/** Words mapped to concepts: "dog" and "beagle" are one, which no word match can know. */
const CONCEPTS: Record<string, number> = { dog: 0, puppy: 0, beagle: 0, pottery: 1, bowls: 1, kiln: 1, report: 2, deadline: 2 };

function conceptEmbedder(): Embedder & { calls: number } {
  const state = { calls: 0 };
  return {
    model: 'test-concepts-v1',
    get calls() {
      return state.calls;
    },
    async embed(texts) {
      state.calls += 1;
      return texts.map((text) => {
        const vector = [0, 0, 0, 0.05];
        for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
          const concept = CONCEPTS[word];
          if (concept !== undefined) vector[concept] = (vector[concept] ?? 0) + 1;
        }
        return vector;
      });
    },
  };
}

let temp: TempLedger;
afterEach(() => temp?.cleanup());

async function twoSessions(embedder: Embedder) {
  temp = openTempLedger({ embedder });
  const { ledger } = temp;
  const pets = await ledger.createSession({ label: 'pets' });
  const petTurns = await ledger.appendTurns(pets.id, [
    userTurn('I adopted a beagle on Saturday.'),
    assistantTurn('Congratulations, what is its name?'),
    userTurn('We call him Biscuit.'),
  ]);
  const hobby = await ledger.createSession({ label: 'hobby' });
  const hobbyTurns = await ledger.appendTurns(hobby.id, [
    userTurn('My pottery class made bowls today.'),
    assistantTurn('Send photos once they leave the kiln.'),
  ]);
  const fork = await ledger.forkFrom(petTurns[0]?.id as string);
  const forkTurns = await ledger.appendTurns(fork.session.id, [userTurn('Actually the puppy came from a breeder.')]);
  return { ledger, pets, hobby, fork: fork.session, petTurns, hobbyTurns, forkTurns };
}

describe('searchByMeaning', () => {
  it('finds nothing before the turns are embedded and says how many are not, then ranks by meaning', async () => {
    const embedder = conceptEmbedder();
    const { ledger, hobby, petTurns, forkTurns, hobbyTurns } = await twoSessions(embedder);
    const before = await ledger.searchByMeaning('my dog');
    expect(before).toEqual({ model: 'test-concepts-v1', hits: [], unembedded: 6 });

    await ledger.embedMissing();
    const found = await ledger.searchByMeaning('my dog', { limit: 3 });
    expect(found.unembedded).toBe(0);
    expect(found.hits.map((hit) => hit.turn.id)).toHaveLength(3);
    // Both dog turns first (one concept, equal similarity: the later turn first), then any other.
    expect(new Set(found.hits.slice(0, 2).map((hit) => hit.turn.id))).toEqual(new Set([petTurns[0]?.id, forkTurns[0]?.id]));
    expect(found.hits[0]?.similarity).toBeGreaterThan(0.99);
    expect(found.hits[2]?.similarity).toBeLessThan(0.1);
    const pottery = await ledger.searchByMeaning('the kiln');
    expect(pottery.hits.slice(0, 2).map((hit) => hit.turn.id)).toEqual([hobbyTurns[1]?.id, hobbyTurns[0]?.id]);
    expect(pottery.hits[0]?.turn).toMatchObject({ role: 'assistant', sessionId: hobby.id });
  });

  it('with sessionId searches that session’s line only, a fork’s inherited turns included', async () => {
    const { ledger, fork, hobby, petTurns, forkTurns } = await twoSessions(conceptEmbedder());
    await ledger.embedMissing();
    const inFork = await ledger.searchByMeaning('dog', { sessionId: fork.id });
    expect(inFork.hits.map((hit) => hit.turn.id)).toEqual([forkTurns[0]?.id, petTurns[0]?.id]);
    const inHobby = await ledger.searchByMeaning('dog', { sessionId: hobby.id });
    expect(inHobby.hits.every((hit) => hit.turn.sessionId === hobby.id)).toBe(true);
    expect(inHobby.hits[0]?.similarity).toBeLessThan(0.1);
  });

  it('answers on a read-only ledger, writing nothing, and refuses what it cannot do', async () => {
    const embedder = conceptEmbedder();
    const { ledger } = await twoSessions(embedder);
    await ledger.embedMissing();
    await ledger.close();
    const reader = openAgentsLedger(temp.file, { readonly: true, embedder, generateId: sequentialIds() });
    try {
      expect((await reader.searchByMeaning('the kiln')).hits[0]?.turn.content).toEqual([
        { type: 'text', text: 'Send photos once they leave the kiln.' },
      ]);
      await expect(reader.searchByMeaning('  ')).rejects.toThrow('Give the text to search for.');
      await expect(reader.searchByMeaning('dog', { limit: 0 })).rejects.toThrow('limit must be from 1 to 200.');
    } finally {
      await reader.close();
    }
    const without = openAgentsLedger(temp.file, { readonly: true });
    try {
      const error = await without.searchByMeaning('dog').catch((caught: unknown) => caught);
      expect(InvalidInputError.isInstance(error)).toBe(true);
      expect(String(error)).toContain('createAgentsLedger({ embedder })');
    } finally {
      await without.close();
    }
  });
});
