// What every turn of a runtime shares, set up once from its options: the listener guard, the
// toolbox, the tokens every prompt carries beside the context, the compaction scheduler, retrieval.

import type { AgentsLedger, RetrievalPolicy } from '@agent-ledger/agents-ledger';
import type { SessionSettings } from '@agent-ledger/core';
import { CompactionScheduler, contextBudget, DEFAULT_RUNTIME_RETRIEVAL, PromptEvidence } from '@agent-ledger/runtime-kit';
import type { PromptSettings } from './model-prompt.ts';
import type { ChatRuntimeOptions, RuntimeNotice } from './runtime-types.ts';
import { createToolbox, type Toolbox } from './tools.ts';

const DEFAULT_MAX_TOOL_ROUNDS = 8;

export interface RuntimeParts {
  options: ChatRuntimeOptions;
  ledger: AgentsLedger;
  notify: (notice: RuntimeNotice) => void;
  toolbox: Toolbox;
  /** The tool definitions' estimated tokens. */
  toolTokens: number;
  /** The system prompt's estimated tokens. */
  systemTokens: number;
  scheduler: CompactionScheduler;
  /** What the model accepted in each session: what an overflow report is weighed against. */
  evidence: PromptEvidence;
  retrieval: boolean | RetrievalPolicy;
  maxToolRounds: number;
}

export function createRuntimeParts(options: ChatRuntimeOptions): RuntimeParts {
  const { ledger } = options;
  // A listener's failure is the listener's: it must not turn a written compaction into a failed one.
  const notify = (notice: RuntimeNotice) => {
    try {
      options.onNotice?.(notice);
    } catch {
      // ignored on purpose
    }
  };
  const toolbox = createToolbox(options, notify);
  const { definitions } = toolbox;
  // Tool definitions go with every prompt the model counts, so they come out of every budget.
  const toolTokens = definitions.length === 0 ? 0 : ledger.tokenCounter.countText(JSON.stringify(definitions));
  const systemTokens = options.systemPrompt ? ledger.tokenCounter.countText(options.systemPrompt) + 1 : 0;
  return {
    options,
    ledger,
    notify,
    toolbox,
    toolTokens,
    systemTokens,
    scheduler: new CompactionScheduler(ledger, options.compaction ?? {}, notify, toolTokens + systemTokens),
    evidence: new PromptEvidence(),
    retrieval: options.retrieval === undefined || options.retrieval === true ? DEFAULT_RUNTIME_RETRIEVAL : options.retrieval,
    maxToolRounds: options.maxToolRounds ?? DEFAULT_MAX_TOOL_ROUNDS,
  };
}

/** What the ledger's context may take: the window less the reply's reserve and the tool definitions. */
export function sessionBudget(parts: RuntimeParts, settings: SessionSettings): number {
  return contextBudget(settings, parts.toolTokens);
}

export function promptSettings(parts: RuntimeParts): PromptSettings {
  const { systemPrompt } = parts.options;
  return {
    ledger: parts.ledger,
    retrieval: parts.retrieval,
    tools: parts.toolbox.definitions,
    toolTokens: parts.toolTokens,
    ...(systemPrompt ? { systemPrompt } : {}),
  };
}
