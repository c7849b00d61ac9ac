export { DatabaseBusyError, fromDriverError } from './driver-errors.ts';
export type { LedgerDatabase, LedgerDrizzle, OpenDatabaseOptions } from './open-database.ts';
export { openDatabase } from './open-database.ts';
export type { AgentSessionRow, AgentTurnRow, NewAgentTurnRow } from './schema.ts';
export { agentSessions, agentTurns } from './schema.ts';
export type { TurnWrites } from './turn-writes.ts';
export { turnWrites } from './turn-writes.ts';
