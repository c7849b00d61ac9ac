// Every command of the CLI, in the order `nexus --help` lists them.

import type { Command } from '../command.ts';
import { chatCommand } from './chat.ts';
import { compactCommand, forkCommand } from './compaction.ts';
import { copyCommand } from './copy.ts';
import { demo } from './demo.ts';
import { embedCommand } from './embed.ts';
import { eventsAppend, eventsCheckpoint, eventsIngest, eventsList, eventsVerify } from './events.ts';
import { exportCommand } from './export.ts';
import { hookCommand } from './hook.ts';
import { hooksInstall, hooksStatus, hooksUninstall } from './hooks.ts';
import { importCommand } from './import.ts';
import { mcpCommand } from './mcp.ts';
import { context, history, treeCommand } from './reading.ts';
import { doctorCommand, searchCommand } from './search.ts';
import { serveCommand } from './serve.ts';
import { sessionCreate, sessionList, sessionShow } from './session.ts';
import { dropTopicCommand, expandCommand, findCommand, topicsCommand } from './topics.ts';
import { turnAppend } from './turn-append.ts';
import { checkpointCommand, verifyCommand } from './verify.ts';

export const COMMANDS: Command[] = [
  sessionCreate,
  sessionList,
  sessionShow,
  turnAppend,
  context,
  history,
  compactCommand,
  forkCommand,
  treeCommand,
  topicsCommand,
  expandCommand,
  findCommand,
  dropTopicCommand,
  importCommand,
  exportCommand,
  copyCommand,
  chatCommand,
  searchCommand,
  embedCommand,
  doctorCommand,
  verifyCommand,
  checkpointCommand,
  eventsAppend,
  eventsIngest,
  eventsList,
  eventsVerify,
  eventsCheckpoint,
  serveCommand,
  mcpCommand,
  hooksInstall,
  hooksUninstall,
  hooksStatus,
  hookCommand,
  demo,
];
