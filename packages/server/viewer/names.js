// What a session is called in a list. An imported session's label reads `<tool> <project folder>
// <YYYY-MM-DD HH:MM>[ · <title>]` (the importers' sessionLabel), so two sessions of one tool agree
// up to the folder's last segment and a label cut to fit hides exactly what differs. A name leads
// with what tells sessions apart (the title, else the folder's last segments); the tool and date
// follow, and the full label is on hover. The listing the sidebar reads is remembered here, so
// search results name their sessions without asking again.

import { getJson, itemsOf, segment } from './api.js';

const IMPORTED = /^(claude-code|codex|pi|messages|nexus-eval)(?: (.+?))??(?: (\d{4}-\d{2}-\d{2} \d{2}:\d{2}))?(?: · (.+))?$/s;

/** The parts of an importer's label; null for a label a person chose. */
export function labelParts(label) {
  const match = IMPORTED.exec(label ?? '');
  if (!match) return null;
  const [, tool, project = null, date = null, title = null] = match;
  // "pi notes" is a person's label: an import names a folder path, a start time, or both.
  if (!date && !/^(?:[/~]|[A-Za-z]:[\\/])/.test(project ?? '')) return null;
  return { tool, project, date, title };
}

/** The last `count` segments of a folder path, either slash. */
export function folderTail(project, count = 1) {
  const parts = project.split(/[\\/]+/).filter(Boolean);
  return parts.slice(-count).join('/') || project;
}

/** For each folder, the fewest last segments that no other of the folders ends with. */
export function tailLengths(projects) {
  const distinct = [...new Set(projects)];
  const lengths = new Map();
  for (const project of distinct) {
    const total = project.split(/[\\/]+/).filter(Boolean).length;
    let count = 1;
    const clash = () => distinct.some((other) => other !== project && folderTail(other, count) === folderTail(project, count));
    while (count < total && clash()) count += 1;
    lengths.set(project, count);
  }
  return lengths;
}

/** Sessions seen so far, by id, and how many folder segments tell their projects apart. */
const known = new Map();
let tails = new Map();
let listing = Promise.resolve();

function remember(sessions) {
  for (const session of sessions) known.set(session.id, session);
  const projects = [...known.values()].map((session) => labelParts(session.label)?.project).filter(Boolean);
  tails = tailLengths(projects);
}

/** The newest `limit` sessions, remembered for naming; search waits for the latest listing. */
export function listSessions(limit) {
  const read = getJson('/v1/sessions', { limit }).then((body) => {
    const sessions = itemsOf(body, 'sessions');
    remember(sessions);
    return sessions;
  });
  listing = read.catch(() => {});
  return read;
}

/** Sessions by id for `ids`: from the listing when it has them, else read one by one. */
export async function sessionsById(ids) {
  await listing;
  const missing = [...new Set(ids)].filter((id) => !known.has(id));
  // One that cannot be read is shown by its id, and asked for again next time.
  const read = await Promise.all(missing.map((id) => getJson(`/v1/sessions/${segment(id)}`).catch(() => null)));
  remember(read.filter(Boolean));
  return known;
}

/**
 * `{ name, details }`: the name that tells the session apart, and what else a person recognises
 * it by (the folder when the title leads, the tool, the date it started).
 */
export function sessionName(session) {
  const parts = labelParts(session?.label);
  const started = minute(session?.createdAt);
  if (!parts) return { name: session?.label ?? session?.id ?? '', details: [started].filter(Boolean) };
  const folder = parts.project ? folderTail(parts.project, tails.get(parts.project) ?? 1) : null;
  // An import's own date is when the work started; the session's creation is when it was imported.
  return {
    name: parts.title ?? folder ?? parts.tool,
    details: [parts.title ? folder : null, parts.tool, parts.date].filter(Boolean),
  };
}

function minute(milliseconds) {
  return typeof milliseconds === 'number' ? new Date(milliseconds).toISOString().slice(0, 16).replace('T', ' ') : null;
}
