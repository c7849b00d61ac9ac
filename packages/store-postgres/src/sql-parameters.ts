// The bound parameters of one statement built piece by piece: each piece adds its values and
// writes their placeholders, so no value is ever spliced into the SQL text.

/** Bound parameters of one statement: `add` returns the placeholder ($n) of the value. */
export class SqlParameters {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}
