export { DatabaseBusyError, fromDriverError, withSearchErrors } from './driver-errors.ts';
export type { EventStatements } from './event-statements.ts';
export { eventStatements } from './event-statements.ts';
export type { LedgerDatabase, LedgerDrizzle, OpenDatabaseOptions } from './open-database.ts';
export { openDatabase } from './open-database.ts';
export type { AgentSessionRow, AgentTurnRow, EventRow, ForestClusterRow, ForestStateRow, NewAgentTurnRow } from './schema.ts';
export {
  agentSessions,
  agentTurns,
  events,
  forestClusters,
  forestNodes,
  forestStates,
  topicDrops,
  turnEvents,
} from './schema.ts';
export type { TurnWrites } from './turn-writes.ts';
export { turnWrites } from './turn-writes.ts';
