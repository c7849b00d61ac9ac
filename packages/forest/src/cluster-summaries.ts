// Lazy summarization: unions only mark clusters dirty, and this makes one summarizer call per
// dirty cluster, so the summarizer cost is linear in clusters, not quadratic in cluster size.

import type { ClusterTable } from './cluster-records.ts';
import { pendingIds } from './cluster-records.ts';
import type { ClusterSummarizer, ClusterSummaryRequest, ResolveDirtyResult } from './forest-types.ts';

/**
 * One summarizer call per dirty cluster, in root order. A result is kept only if the cluster is
 * still the same root with the same members as when the call started (a merge in flight makes it
 * stale); a failed call leaves the cluster dirty with its pending members (and their text) intact.
 */
export async function resolveDirtyClusters(table: ClusterTable, summarize: ClusterSummarizer): Promise<ResolveDirtyResult> {
  const result: ResolveDirtyResult = { summarized: [], stale: [], failed: [] };
  const { nodes, records } = table;
  for (const clusterId of table.roots.filter((id) => records.get(id)?.dirty)) {
    const cluster = records.get(clusterId);
    if (!cluster?.dirty) continue;
    const generation = cluster.generation;
    const request: ClusterSummaryRequest = {
      clusterId,
      previousSummaries: [...(cluster.summary ? [cluster.summary] : []), ...cluster.absorbedSummaries],
      turns: pendingIds(cluster, nodes).map((id) => {
        const node = nodes.node(id);
        return { id, text: node.text ?? '', timestamp: node.timestamp };
      }),
    };
    let summary: string;
    try {
      summary = await summarize(request);
    } catch (error) {
      result.failed.push({ clusterId, error });
      continue;
    }
    const current = records.get(clusterId);
    if (!current || current.generation !== generation) {
      result.stale.push(clusterId);
      continue;
    }
    for (const id of nodes.chainIds(current.pendingChain, 'nextPending')) delete nodes.node(id).text;
    current.summary = summary;
    current.summaryVersion += 1;
    current.pendingChain = { first: null, last: null };
    current.absorbedSummaries = [];
    current.dirty = false;
    result.summarized.push(clusterId);
  }
  return result;
}
