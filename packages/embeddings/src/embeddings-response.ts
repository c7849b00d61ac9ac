// Reading an OpenAI-compatible embeddings answer: `{ data: [{ index, embedding }] }`, one item per
// input. Servers may list the items in any order (the spec orders them by `index`, not by position),
// so they are put back in input order. Anything but one finite vector per input, all of one length
// (and of the length asked for, when dimensions were asked), is refused here with the reason, so a
// wrong vector is never stored under the model's name.

export type ParsedEmbeddings = { vectors: number[][] } | { problem: string };

export function parseEmbeddings(body: unknown, { count, dimensions }: { count: number; dimensions?: number }): ParsedEmbeddings {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return { problem: 'answered without a `data` list of embeddings' };
  if (data.length !== count) return { problem: `answered ${data.length} embeddings for ${count} inputs` };
  const vectors = new Array<number[] | undefined>(count);
  for (const [position, item] of data.entries()) {
    const index = (item as { index?: unknown } | null)?.index ?? position;
    if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= count) {
      return { problem: `answered an embedding with index ${JSON.stringify(index)} for ${count} inputs` };
    }
    if (vectors[index as number] !== undefined) return { problem: `answered two embeddings with index ${index}` };
    const vector = toVector((item as { embedding?: unknown } | null)?.embedding);
    if (typeof vector === 'string') return { problem: `answered, for input ${index}, ${vector}` };
    vectors[index as number] = vector;
  }
  const complete = vectors as number[][];
  const length = (complete[0] as number[]).length;
  const odd = complete.findIndex((vector) => vector.length !== length);
  if (odd >= 0) return { problem: `answered vectors of different lengths (${length} and ${complete[odd]?.length})` };
  if (dimensions !== undefined && length !== dimensions) {
    return {
      problem: `answered ${length}-dimensional vectors where ${dimensions} were asked (does the model take \`dimensions\`?)`,
    };
  }
  return { vectors: complete };
}

/** A number array, or a base64 string of little-endian float32s (encoding_format "base64"); else why not. */
function toVector(embedding: unknown): number[] | string {
  let values: unknown[];
  if (typeof embedding === 'string') {
    const bytes = Buffer.from(embedding, 'base64');
    if (bytes.length === 0 || bytes.length % 4 !== 0) return 'an embedding string that is not base64 float32s';
    values = Array.from({ length: bytes.length / 4 }, (_, index) => bytes.readFloatLE(index * 4));
  } else if (Array.isArray(embedding)) {
    values = embedding;
  } else {
    return 'no embedding';
  }
  if (values.length === 0) return 'an empty vector';
  if (values.some((value) => typeof value !== 'number' || !Number.isFinite(value))) {
    return 'a vector holding something other than finite numbers (NaN, null, a string…)';
  }
  return values as number[];
}
