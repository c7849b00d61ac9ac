// The union-find nodes: one per graduated turn, each pointing at its parent (a root points at
// itself). Finding a root compresses the path; the nodes also carry the links of each cluster's
// member and pending chains, so a union joins two clusters' id lists in O(1).

import { ForestIntegrityError } from '@agent-ledger/core';

export interface NodeRecord {
  id: string;
  parent: string;
  sequence: number;
  tokens: number;
  timestamp: number;
  /** Kept only while the node waits to be folded into a summary. */
  text?: string;
  /** The next member of its cluster, and the next node waiting in its cluster's pending list. */
  nextMember: string | null;
  nextPending: string | null;
}

/**
 * Ids linked through the nodes (nextMember or nextPending), first to last: a union joins two in
 * O(1), where copying the smaller cluster's ids cost up to its size (the tail of the latency).
 */
export interface IdChain {
  first: string | null;
  last: string | null;
}

export type ChainLink = 'nextMember' | 'nextPending';

export class ForestNodes {
  private readonly records = new Map<string, NodeRecord>();

  get size(): number {
    return this.records.size;
  }

  has(id: string): boolean {
    return this.records.has(id);
  }

  get(id: string): NodeRecord | undefined {
    return this.records.get(id);
  }

  /** A node the caller knows is in the forest (a root, a chain link, a recorded change). */
  node(id: string): NodeRecord {
    return this.records.get(id) as NodeRecord;
  }

  add(node: NodeRecord): void {
    this.records.set(node.id, node);
  }

  values(): IterableIterator<NodeRecord> {
    return this.records.values();
  }

  /** The root of the tree holding `id`, or null when `id` never graduated. Compresses paths. */
  find(id: string): string | null {
    const start = this.records.get(id);
    if (!start) return null;
    const root = this.rootWithoutCompression(id);
    // Path compression: every node on the way now points straight at the root.
    let node = start;
    while (node.parent !== root && node.id !== root) {
      const next = this.node(node.parent);
      node.parent = root;
      node = next;
    }
    return root;
  }

  /** Follows parent pointers to the root, checking for cycles and dangling pointers. */
  rootWithoutCompression(id: string): string {
    let node = this.node(id);
    // A walk longer than the forest has nodes is a cycle: only then are the visited nodes collected
    // (for the error), so the common walk of a step or two allocates nothing.
    for (let steps = 0; node.parent !== node.id; steps += 1) {
      if (steps > this.records.size) this.throwCycle(id);
      const parent = this.records.get(node.parent);
      if (!parent)
        throw new ForestIntegrityError(`Node ${node.id} points at ${node.parent}, which is not in the forest.`, [node.id]);
      node = parent;
    }
    return node.id;
  }

  private throwCycle(id: string): never {
    const visited = new Set<string>();
    let node = this.node(id);
    while (!visited.has(node.id)) {
      visited.add(node.id);
      node = this.node(node.parent);
    }
    throw new ForestIntegrityError(`Parent pointers from ${id} form a cycle.`, [...visited]);
  }

  sequenceOf(id: string): number {
    return this.records.get(id)?.sequence ?? Number.MAX_SAFE_INTEGER;
  }

  inGraduationOrder(ids: readonly string[]): string[] {
    return [...ids].sort((x, y) => this.sequenceOf(x) - this.sequenceOf(y));
  }

  /** Links `ids` in order through `link`. */
  linkChain(ids: readonly string[], link: ChainLink): IdChain {
    for (let index = 1; index < ids.length; index += 1) {
      this.node(ids[index - 1] as string)[link] = ids[index] as string;
    }
    return { first: ids[0] ?? null, last: ids.at(-1) ?? null };
  }

  /** `from`'s ids after `into`'s (`from` is not used again). */
  appendChain(into: IdChain, from: IdChain, link: ChainLink): void {
    if (from.first === null) return;
    if (into.last === null) into.first = from.first;
    else this.node(into.last)[link] = from.first;
    into.last = from.last;
  }

  /** The ids of a chain, first to last (a link past `last` is stale: the list it led to was cleared). */
  chainIds(chain: IdChain, link: ChainLink): string[] {
    const ids: string[] = [];
    let id = chain.first;
    while (id !== null) {
      ids.push(id);
      if (id === chain.last) break;
      id = this.node(id)[link];
    }
    return ids;
  }
}
