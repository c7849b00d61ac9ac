// How much of a runtime's context goes to turns recalled for the incoming message.

import type { RetrievalPolicy } from '@agent-ledger/agents-ledger';

/**
 * A runtime's retrieval policy. The evaluation's best (share 1, no cap) measures evidence kept
 * at 0.5k–8k budgets; a runtime's budget is a whole model window, where share 1 would send tens of
 * thousands of retrieved tokens on every turn. Retrieval stops gaining past 4,000 tokens on both
 * evaluation sets (docs/benchmarks.md), and half the budget stays for the summary and the thread.
 */
export const DEFAULT_RUNTIME_RETRIEVAL: RetrievalPolicy = { share: 0.5, maxTokens: 4000 };
