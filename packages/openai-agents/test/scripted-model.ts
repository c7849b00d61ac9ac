// An offline model for the Agents SDK's runner (its `Model` interface, as the SDK's own test stubs
// implement it): it calls the `lookup` tool when asked to look something up, answers the tool's
// result, and otherwise notes the newest user message; streamed or not. It keeps every request.

import {
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type StreamEvent,
  Usage,
} from '@openai/agents-core';

export class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    return {
      output: this.reply(request),
      usage: new Usage({ requests: 1, inputTokens: 10, outputTokens: 5, totalTokens: 15 }),
      responseId: `resp_${this.requests.length}`,
    };
  }

  async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    this.requests.push(request);
    const output = this.reply(request);
    yield { type: 'response_started' };
    for (const item of output)
      if ('role' in item && item.role === 'assistant')
        for (const part of item.content)
          if (part.type === 'output_text')
            for (const word of part.text.split(/(?<= )/)) yield { type: 'output_text_delta', delta: word };
    yield {
      type: 'response_done',
      response: {
        id: `resp_${this.requests.length}`,
        usage: { requests: 1, inputTokens: 10, outputTokens: 5, totalTokens: 15 },
        // The stream's completed response carries the output messages (its schema's own item type).
        output: output as Extract<StreamEvent, { type: 'response_done' }>['response']['output'],
      },
    };
  }

  private reply(request: ModelRequest): ModelResponse['output'] {
    const input = typeof request.input === 'string' ? [{ role: 'user' as const, content: request.input }] : request.input;
    const last = input.at(-1);
    if (last && 'type' in last && last.type === 'function_call_result') {
      const output = last.output as { text?: string } | string;
      return [message(`The lookup says: ${typeof output === 'string' ? output : output.text}`)];
    }
    const asked = newestUserText(input);
    if (/look up/i.test(asked) && request.tools.some((tool) => tool.name === 'lookup'))
      return [
        {
          type: 'function_call',
          callId: `call_${this.requests.length}`,
          name: 'lookup',
          arguments: JSON.stringify({ host: 'db-3' }),
          status: 'completed',
        },
      ];
    return [message(`Noted: ${asked}`)];
  }
}

function message(text: string): ModelResponse['output'][number] {
  return { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] };
}

export function newestUserText(items: readonly AgentInputItem[]): string {
  for (let index = items.length - 1; index >= 0; index -= 1) {
    const item = items[index];
    if (item && 'role' in item && item.role === 'user')
      return typeof item.content === 'string'
        ? item.content
        : item.content.map((part) => (part.type === 'input_text' ? part.text : '')).join('');
  }
  return '';
}
