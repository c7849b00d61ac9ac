// `nexus checkpoint` and `nexus verify`: what the ledger can prove about its own history. Every turn
// and every event is hash-chained; a checkpoint kept elsewhere adds what no chain can show (its end
// cut off, a session emptied or removed, a line rehashed from the start).

import type { Problem } from '@agent-ledger/agents-ledger';
import { stringOption } from '../arguments.ts';
import { ALREADY_WRITTEN, type Command } from '../command.ts';
import { LEDGER_CHECKPOINT_FORMAT, type LedgerCheckpoint, readCheckpointFile } from '../ledger-checkpoint.ts';

export const checkpointCommand: Command = {
  path: ['checkpoint'],
  readsOnly: true,
  summary: "Print every session's head and every event channel's head (id, depth or seq, hash) as JSON, to keep elsewhere.",
  arguments: [],
  options: {},
  details:
    'Save the output outside this database (another machine, a commit, a ticket): `nexus verify --checkpoint FILE` then ' +
    'fails if any session or channel has since lost entries from its end, been emptied, removed or rewritten.',
  async run({ io, openLedger, openEventsLedger }) {
    const sessions = await openLedger().checkpoint();
    const events = await openEventsLedger().checkpoint({});
    const checkpoint: LedgerCheckpoint = {
      format: LEDGER_CHECKPOINT_FORMAT,
      takenAt: events.takenAt,
      channels: events.channels,
      sessions,
    };
    // The checkpoint is the output, in either mode: it is meant to be redirected to a file.
    io.write(`${JSON.stringify(checkpoint, null, 2)}\n`);
    return ALREADY_WRITTEN;
  },
};

export const verifyCommand: Command = {
  path: ['verify'],
  readsOnly: true,
  summary: 'Recompute every turn and event hash chain and check every session head; with --checkpoint, also against it.',
  arguments: [],
  options: {
    checkpoint: {
      type: 'string',
      description: 'a file `nexus checkpoint` (or `nexus events checkpoint`) wrote',
      valueName: 'FILE',
    },
  },
  details:
    'Without a checkpoint this proves each stored turn and event is unchanged, in its place, and linked to the one ' +
    'before it, and each session head is the end of its own turns. It cannot show that the newest turns or events were ' +
    'removed with the head moved back to match, or that a whole line was rewritten and rehashed: keep a checkpoint ' +
    'elsewhere and verify against it. Exits 1 when anything does not hold.',
  async run({ options, io, openLedger, openEventsLedger }) {
    const file = stringOption(options.checkpoint);
    const checkpoint = file === undefined ? null : await readCheckpointFile(file);
    const ledger = openLedger();
    const turns = await ledger.verifyTurnChains();
    const events = await openEventsLedger().verify(checkpoint ? { checkpoint: checkpoint.events } : {});
    const problems: Problem[] = [...turns.problems];
    if (events.firstBroken) {
      const broken = events.firstBroken;
      problems.push({ code: 'EVENT_CHAIN_BROKEN', message: `${broken.channel} seq ${broken.seq}: ${broken.reason}`, ids: [] });
    }
    for (const problem of events.checkpointProblems ?? [])
      problems.push({ code: `CHECKPOINT_${problem.reason.toUpperCase()}`, message: problem.message, ids: [problem.channel] });
    if (checkpoint?.sessions) problems.push(...(await ledger.verifyCheckpoint(checkpoint.sessions)));
    for (const problem of problems)
      io.print(`${problem.code}: ${problem.message}${problem.ids.length ? ` [${problem.ids.join(', ')}]` : ''}`);
    if (problems.length === 0) {
      const anchored = checkpoint
        ? `; every head of the checkpoint (${checkpoint.sessions?.length ?? 0} sessions, ${checkpoint.events.channels.length} channels) is still there`
        : '';
      io.print(
        `ok: ${turns.turnsChecked} turns in ${turns.sessionsChecked} sessions and ${events.checked} events in ${events.channels} channels, every link holds${anchored}`,
      );
    } else io.setExitCode(1);
    return { ok: problems.length === 0, turnsChecked: turns.turnsChecked, eventsChecked: events.checked, problems };
  },
};
