// The conformance suite every ChatModel must pass: the promises chat-model.ts and docs/runtime.md
// make about the seam, checked the same way for each implementation. `chatModelContract` registers
// the cases; a subject says how to build its model in each situation a case needs (a provider that
// calls a tool, one that overflows, one that fails). A case a model cannot take part in is
// registered as skipped with the subject's reason, so a missing capability is always visible in
// the report and never silently drops a case.

import { recallToolDefinition } from '@agent-ledger/agents-ledger';
import { type ContentBlock, ContextOverflowError, type Message, ModelError } from '@agent-ledger/core';
import { describe, expect, it } from 'vitest';
import type { ChatModel, ModelReply, ModelRequest, ToolDefinition } from '../src/index.ts';
import { rejection } from './helpers.ts';

/** Why a case does not apply to a model; the case is then registered as skipped, with this reason. */
export interface Unsupported {
  readonly unsupported: string;
}

export function unsupported(reason: string): Unsupported {
  return { unsupported: reason };
}

export interface OverflowScenario {
  /** How the provider refuses the prompt, e.g. `the API's 413 request_too_large`. */
  label: string;
  /** A model whose provider refuses the contract's request as too long, and the figures it gave (null: none). */
  create: () => Promise<{ model: ChatModel; figures: () => { promptTokens: number | null; limitTokens: number | null } }>;
}

export interface FailureScenario {
  /** What goes wrong, e.g. `an HTTP 500`. */
  label: string;
  /** A model whose provider fails the contract's request in a way that is not an overflow. */
  create: () => Promise<ChatModel>;
}

export interface ChatModelSubject {
  /** A model whose provider answers every request with something to say (so the reply has content). */
  create: () => Promise<ChatModel>;
  /**
   * A model that calls a tool when asked CONTRACT_QUESTION with CONTRACT_TOOL offered and toolChoice
   * auto, and answers in text when the toolChoice is none (as the Messages API does).
   */
  createToolCaller: () => Promise<ChatModel>;
  /** `started` resolves once the provider holds the request, which it never answers on its own. */
  abort: { createSlow: () => Promise<{ model: ChatModel; started: () => Promise<void> }> } | Unsupported;
  overflows: OverflowScenario[] | Unsupported;
  failures: FailureScenario[] | Unsupported;
  /** A model that has `countTokens`, and a way to make its count fail. */
  countTokens: { createFailing: () => Promise<ChatModel> } | Unsupported;
}

/** The tool every runtime offers its model: the recall tool. */
export const CONTRACT_TOOL: ToolDefinition = recallToolDefinition;

/** A question about something said earlier: what makes a model reach for the recall tool. */
export const CONTRACT_QUESTION: Message = {
  role: 'user',
  content: [{ type: 'text', text: 'Which port does the cache listen on?' }],
};

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return { system: 'You answer questions about our services.', messages: [CONTRACT_QUESTION], tools: [], ...overrides };
}

/** The question, a call of the recall tool and its result: the history a tool round leaves. */
const TOOL_ROUND: Message[] = [
  CONTRACT_QUESTION,
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Let me look that up.' },
      { type: 'tool_use', id: 'toolu_contract_1', name: CONTRACT_TOOL.name, input: { query: 'cache port', limit: 3 } },
    ],
  },
  {
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: 'toolu_contract_1', content: 't_1 (turn): The cache listens on port 6379.' }],
  },
];

export function chatModelContract(name: string, subject: ChatModelSubject): void {
  describe(`${name} keeps the ChatModel contract`, () => {
    describe('replies', () => replyCases(subject));
    describe('tools', () => toolCases(subject));
    describe('abort', () => abortCases(subject));
    describe('context overflow', () => overflowCases(subject));
    describe('other failures', () => failureCases(subject));
    describe('countTokens', () => countTokensCases(subject));
  });
}

/** Registers the case when the subject supports it, else a skipped case that says why. */
function caseIf<T extends object>(
  capability: T | Unsupported,
  title: string,
  run: (supported: T) => Promise<void>,
  options: { timeout?: number } = {},
): void {
  if ('unsupported' in capability) it.skip(`${title} (not supported: ${capability.unsupported})`, () => {});
  else it(title, options, () => run(capability));
}

/** One case per scenario; none declared is a failing case, not a silent gap. */
function scenarioCases<T extends { label: string }>(
  scenarios: T[] | Unsupported,
  /** What the case is about when there is no scenario to name. */
  anyLabel: string,
  title: (label: string) => string,
  run: (scenario: T) => Promise<void>,
): void {
  if ('unsupported' in scenarios) caseIf(scenarios, title(anyLabel), async () => {});
  else if (scenarios.length === 0)
    it(title(anyLabel), () => {
      throw new Error('The subject declares no scenario for this case: give one, or say why with unsupported().');
    });
  else for (const scenario of scenarios) it(title(scenario.label), () => run(scenario));
}

/** What every reply promises: ledger blocks only (text, tool_use), a stop reason, the model, whole-token usage. */
function expectWellFormedReply(reply: ModelReply): void {
  expect(Array.isArray(reply.content)).toBe(true);
  // The provider said something; a model that loses it leaves the runtime an empty reply (a ModelError).
  expect(reply.content.length).toBeGreaterThan(0);
  for (const block of reply.content) {
    // Thinking and server-tool blocks are not part of the transcript the ledger keeps.
    expect(['text', 'tool_use']).toContain(block.type);
    if (block.type === 'text') expect(typeof block.text).toBe('string');
  }
  expect(reply.stopReason === null || typeof reply.stopReason === 'string').toBe(true);
  expect(typeof reply.model).toBe('string');
  expect(reply.model).not.toBe('');
  for (const count of [reply.usage?.inputTokens, reply.usage?.outputTokens]) {
    expect(Number.isInteger(count), `usage ${JSON.stringify(reply.usage)}`).toBe(true);
    expect(count).toBeGreaterThanOrEqual(0);
  }
}

function toolUses(content: readonly ContentBlock[]) {
  return content.filter((block) => block.type === 'tool_use');
}

function expectModelError(error: Error, model: ChatModel): void {
  expect(ModelError.isInstance(error), `${error.name}: ${error.message}`).toBe(true);
  expect(ContextOverflowError.isInstance(error)).toBe(false);
  const failure = error as ModelError;
  expect(failure.code).toBe('MODEL_FAILED');
  // The error names the model that failed, as the model names itself.
  expect(failure.model).toBe(model.name);
  expect(failure.message).not.toBe('');
}

function replyCases(subject: ChatModelSubject): void {
  it('has a name and a label to show people', async () => {
    const model = await subject.create();
    expect(typeof model.name).toBe('string');
    expect(model.name).not.toBe('');
    expect(typeof model.label).toBe('string');
    expect(model.label).not.toBe('');
  });

  it('answers a request with messages: text and tool_use blocks, a stop reason, the model, usage in whole tokens', async () => {
    const model = await subject.create();
    expectWellFormedReply(await model.respond(request()));
  });

  it('answers a history with a tool round (a tool_use answered by its tool_result)', async () => {
    const model = await subject.create();
    expectWellFormedReply(await model.respond(request({ messages: TOOL_ROUND, tools: [CONTRACT_TOOL] })));
  });
}

function toolCases(subject: ChatModelSubject): void {
  const offered = request({ tools: [CONTRACT_TOOL], toolChoice: 'auto' });

  it('gives a tool_use an id, the name of a tool it was offered, and an object input', async () => {
    const model = await subject.createToolCaller();
    const reply = await model.respond(offered);
    expectWellFormedReply(reply);
    const calls = toolUses(reply.content);
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(typeof call.id).toBe('string');
      expect(call.id).not.toBe('');
      expect([CONTRACT_TOOL.name]).toContain(call.name);
      expect(
        typeof call.input === 'object' && call.input !== null && !Array.isArray(call.input),
        JSON.stringify(call.input),
      ).toBe(true);
    }
  });

  it('never repeats a tool_use id across replies (the API refuses a history that does)', async () => {
    const model = await subject.createToolCaller();
    const first = toolUses((await model.respond(offered)).content);
    const second = toolUses((await model.respond(offered)).content);
    const ids = [...first, ...second].map((call) => call.id);
    expect(first.length).toBeGreaterThan(0);
    expect(second.length).toBeGreaterThan(0);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('answers in text, with no tool_use, when toolChoice is none (the tools stay defined)', async () => {
    const model = await subject.createToolCaller();
    // The same request with the tool allowed does call it, so the case below is not vacuous.
    expect(toolUses((await model.respond(offered)).content).length).toBeGreaterThan(0);
    const reply = await model.respond({ ...offered, toolChoice: 'none' });
    expectWellFormedReply(reply);
    expect(toolUses(reply.content)).toEqual([]);
  });
}

/** An aborted call ends the model call; docs/runtime.md: "an aborted Anthropic call is a MODEL_FAILED". */
function abortCases(subject: ChatModelSubject): void {
  caseIf(subject.abort, 'rejects with ModelError when the signal is already aborted', async () => {
    const model = await subject.create();
    const controller = new AbortController();
    controller.abort();
    expectModelError(await rejection(model.respond(request({ signal: controller.signal }))), model);
  });

  // The provider never answers, so only the abort can end the call: a model that ignores the signal
  // runs into this case's timeout.
  caseIf(
    subject.abort,
    'rejects with ModelError when the signal is aborted while the provider holds the request',
    async ({ createSlow }) => {
      const { model, started } = await createSlow();
      const controller = new AbortController();
      const pending = rejection(model.respond(request({ signal: controller.signal })));
      await started();
      controller.abort();
      expectModelError(await pending, model);
    },
    { timeout: 10_000 },
  );
}

function overflowCases(subject: ChatModelSubject): void {
  scenarioCases(
    subject.overflows,
    'a prompt too long for the window',
    (label) => `surfaces ${label} as ContextOverflowError, with the provider's figures where it gives them`,
    async (scenario) => {
      const { model, figures } = await scenario.create();
      const error = await rejection(model.respond(request()));
      expect(ContextOverflowError.isInstance(error), `${error.name}: ${error.message}`).toBe(true);
      // Only an overflow is recovered from (compact and retry), so it must not pass for a ModelError.
      expect(ModelError.isInstance(error)).toBe(false);
      const overflow = error as ContextOverflowError;
      expect(overflow.code).toBe('CONTEXT_OVERFLOW');
      expect({ promptTokens: overflow.promptTokens, limitTokens: overflow.limitTokens }).toEqual(figures());
    },
  );
}

function failureCases(subject: ChatModelSubject): void {
  scenarioCases(
    subject.failures,
    'a failure that is not an overflow',
    (label) => `surfaces ${label} as ModelError naming the model, not as an overflow`,
    async (scenario) => {
      const model = await scenario.create();
      expectModelError(await rejection(model.respond(request())), model);
    },
  );
}

function countTokensCases(subject: ChatModelSubject): void {
  const { countTokens } = subject;

  // The flag is checked against the model, so it cannot hide a countTokens the model has.
  it(`${'unsupported' in countTokens ? 'has no' : 'has a'} countTokens, as the subject declares`, async () => {
    const model = await subject.create();
    expect(typeof model.countTokens).toBe('unsupported' in countTokens ? 'undefined' : 'function');
  });

  caseIf(countTokens, 'counts a request as a whole number of tokens', async () => {
    const model = await subject.create();
    const count = await model.countTokens?.(request({ tools: [CONTRACT_TOOL] }));
    expect(Number.isInteger(count), String(count)).toBe(true);
    expect(count).toBeGreaterThanOrEqual(0);
  });

  caseIf(countTokens, 'rejects a count that fails with ModelError naming the model', async ({ createFailing }) => {
    const model = await createFailing();
    if (!model.countTokens) throw new Error(`${model.name} has no countTokens`);
    expectModelError(await rejection(model.countTokens(request())), model);
  });
}
