// The hooks section of a settings file (Claude Code's settings.json and Codex's hooks.json share its
// shape: event → matcher groups → handlers), edited without touching anything that is not ours. A
// handler is ours when its command runs `nexus hook <tool>`; adding replaces ours in place or adds a
// group, and removing takes out ours and only the groups and events that held nothing else.

import { InvalidInputError } from '@agent-ledger/core';
import { isJsonObject, type JsonObject } from './settings-file.ts';

export interface HookSpec {
  /** The tool's event name: UserPromptSubmit. */
  event: string;
  matcher?: string;
  command: string;
  /** Seconds. */
  timeout: number;
  /** Run in the background (Claude Code): the agent does not wait for it. */
  async?: boolean;
}

export interface HookChanges {
  added: string[];
  updated: string[];
  unchanged: string[];
}

/** True for a command nexus hooks install wrote (whatever path to nexus it names). */
export function isNexusHookCommand(command: unknown, tool: string): boolean {
  if (typeof command !== 'string') return false;
  return new RegExp(`(^|[\\s/'"])nexus(\\.js)?['"]?\\s+hook\\s+${tool}(\\s|$)`).test(command);
}

function handlerOf(spec: HookSpec): JsonObject {
  return { type: 'command', command: spec.command, timeout: spec.timeout, ...(spec.async ? { async: true } : {}) };
}

/** The matcher groups of one event, checked to be the shape the tools read. */
function groupsOf(hooks: JsonObject, event: string, file: string): JsonObject[] {
  const groups = hooks[event] ?? [];
  if (!Array.isArray(groups) || !groups.every((group) => isJsonObject(group) && Array.isArray(group.hooks ?? [])))
    throw new InvalidInputError(
      `hooks.${event} in ${file} is not a list of matcher groups: fix it by hand; nothing was changed.`,
    );
  return groups as JsonObject[];
}

/** Adds (or brings up to date) our handler for each spec in `hooks`, in place. */
export function addHooks(hooks: JsonObject, specs: HookSpec[], tool: string, file: string): HookChanges {
  const changes: HookChanges = { added: [], updated: [], unchanged: [] };
  for (const spec of specs) {
    const groups = groupsOf(hooks, spec.event, file);
    const wanted = handlerOf(spec);
    const found = groups
      .flatMap((group) => (group.hooks as JsonObject[]).map((handler, index) => ({ group, handler, index })))
      .filter(({ handler }) => isNexusHookCommand(handler.command, tool));
    const [first, ...extra] = found;
    // A second handler of ours for one event would run the hook twice: drop it.
    for (const { group, handler } of extra) group.hooks = (group.hooks as JsonObject[]).filter((other) => other !== handler);
    if (!first) {
      hooks[spec.event] = [...groups, { ...(spec.matcher ? { matcher: spec.matcher } : {}), hooks: [wanted] }];
      changes.added.push(spec.event);
      continue;
    }
    const sameMatcher = (first.group.matcher ?? undefined) === spec.matcher;
    if (JSON.stringify(first.handler) === JSON.stringify(wanted) && sameMatcher && extra.length === 0) {
      changes.unchanged.push(spec.event);
      continue;
    }
    (first.group.hooks as JsonObject[])[first.index] = wanted;
    if (!sameMatcher && (first.group.hooks as JsonObject[]).length === 1) {
      if (spec.matcher) first.group.matcher = spec.matcher;
      else delete first.group.matcher;
    }
    changes.updated.push(spec.event);
  }
  return changes;
}

/** Takes our handlers out of `hooks`, in place; returns the events they were on. */
export function removeHooks(hooks: JsonObject, tool: string, file: string): string[] {
  const removed: string[] = [];
  for (const event of Object.keys(hooks)) {
    const groups = groupsOf(hooks, event, file);
    let changed = false;
    const kept = groups.flatMap((group) => {
      const handlers = group.hooks as JsonObject[];
      const others = handlers.filter((handler) => !isNexusHookCommand(handler.command, tool));
      if (others.length === handlers.length) return [group];
      changed = true;
      return others.length > 0 ? [{ ...group, hooks: others }] : [];
    });
    if (!changed) continue;
    removed.push(event);
    if (kept.length > 0) hooks[event] = kept;
    else delete hooks[event];
  }
  return removed;
}

/** Our handlers in `hooks`: the events and the command each runs. */
export function ourHooks(hooks: JsonObject, tool: string): Array<{ event: string; command: string }> {
  const found: Array<{ event: string; command: string }> = [];
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      if (!isJsonObject(group) || !Array.isArray(group.hooks)) continue;
      for (const handler of group.hooks) {
        if (isJsonObject(handler) && isNexusHookCommand(handler.command, tool))
          found.push({ event, command: String(handler.command) });
      }
    }
  }
  return found;
}
