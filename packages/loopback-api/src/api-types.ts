// The Messages API shapes the loopback server reads: its own module, so the server and the request
// checks (messages-validation.ts) share them without importing each other.

export interface ApiTextBlock {
  type: 'text';
  text: string;
}
export interface ApiToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}
export interface ApiToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | ApiTextBlock[];
  is_error?: boolean;
}
export type ApiContentBlock = ApiTextBlock | ApiToolUseBlock | ApiToolResultBlock;

export interface ApiMessage {
  role: 'user' | 'assistant';
  content: string | ApiContentBlock[];
}

/** The request body as the SDK sent it (only the fields the server reads are typed). */
export interface MessagesRequestBody {
  model: string;
  max_tokens?: number;
  system?: string | ApiTextBlock[];
  messages: ApiMessage[];
  tools?: Array<{ name: string; description?: string; input_schema?: unknown }>;
  [field: string]: unknown;
}
