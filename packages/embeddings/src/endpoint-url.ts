// Where an OpenAI-compatible embeddings request goes, and how that place is named in messages: the
// base URL a user gives (`http://localhost:11434/v1`, `https://api.openai.com/v1`) plus
// `/embeddings`, with any `user:password@` removed from what errors and logs show.

import { InvalidInputError } from '@agent-ledger/core';

export interface EmbeddingsEndpoint {
  /** The URL requested. */
  url: string;
  /** The same URL without credentials: the only form an error or a log may show. */
  shown: string;
}

export function embeddingsEndpoint(baseURL: string): EmbeddingsEndpoint {
  let parsed: URL;
  try {
    parsed = new URL(baseURL);
  } catch {
    throw new InvalidInputError(
      `The embeddings base URL ${JSON.stringify(withoutCredentials(baseURL))} is not a URL: give one like http://localhost:11434/v1 (Ollama) or https://api.openai.com/v1.`,
      'baseURL',
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new InvalidInputError(
      `The embeddings base URL must start with http:// or https:// (like http://localhost:11434/v1), got ${JSON.stringify(withoutCredentials(baseURL))}.`,
      'baseURL',
    );
  }
  const url = `${baseURL.replace(/\/+$/, '')}/embeddings`;
  return { url, shown: withoutCredentials(url) };
}

/** A URL with `user:password@` taken out (text that does not parse is returned with the same cut). */
export function withoutCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1');
}

/** True for OpenAI's own API, the one endpoint where OPENAI_API_KEY is the key to use. */
export function isOpenAIEndpoint(baseURL: string): boolean {
  try {
    return new URL(baseURL).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}
