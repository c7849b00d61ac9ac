// The runtime's two "this cannot be sent" errors, said in its own terms (the session's window, the
// reserve, the tools) with what to change. Pure: everything they say is passed in.

import { ContextOverflowError, type InvalidInputError, type Session } from '@agent-ledger/core';

/** The newest message alone is over the budget (buildContext refused it): nothing to send, and what to change. */
export function doesNotFit(problem: {
  budgetTokens: number;
  head: string;
  session: Session;
  toolTokens: number;
  cause: InvalidInputError;
}): ContextOverflowError {
  const { budgetTokens, head, session, toolTokens, cause } = problem;
  const { contextWindow, reserveTokens } = session.settings;
  const advice = session.calibration
    ? `The model itself reported this window (${session.calibration.promptTokens} tokens counted where this ledger estimated ` +
      `${session.calibration.estimatedTokens}): use a model with a larger window, fewer tools, or a shorter message.`
    : "Raise the session's contextWindow or send a shorter message.";
  return new ContextOverflowError(
    `The newest message does not fit the ${budgetTokens} tokens left for the context (window ${contextWindow}, ` +
      `reserve ${reserveTokens}, tool definitions ${toolTokens}) even with the summary and every older turn left out; ` +
      `it was not sent. The ledger holds it (turn ${head}). ${advice}`,
    null,
    null,
    { cause },
  );
}

/** The one error left after a recovery did not help, saying what to change. */
export function stillTooLong(problem: {
  modelName: string;
  error: ContextOverflowError;
  head: string;
  session: Session;
}): ContextOverflowError {
  const { modelName, error, head, session } = problem;
  const learned = session.calibration
    ? ` The session already learned a window of ${session.settings.contextWindow} tokens by this ledger's count ` +
      `(the model counts ${session.calibration.tokensPerEstimatedToken.toFixed(2)} for each one estimated).`
    : '';
  return new ContextOverflowError(
    `The prompt is still too long for ${modelName} after compacting once (${error.message}).${learned} ` +
      `Nothing was lost: the ledger holds every turn (the head is ${head}). ` +
      `Fork it with a smaller window and go on there: \`nexus fork ${head} --context-window N\`, then ` +
      '`nexus chat --session <fork>` (library: forkFrom(turnId, { settings: { contextWindow } }) and respond()); or drop topics.',
    error.promptTokens,
    error.limitTokens,
    { cause: error },
  );
}
