// sqlite-vec (an optional dependency) loaded into a connection, once, for the vector reads that
// can use it (nearest-turns.ts). It is optional because it is a native library per platform: when
// the package is absent (the bundled CLI, an unsupported platform), the library cannot load, or
// NEXUS_SQLITE_VEC=off asks for it not to be used, the reads fall back to an exact scan in
// JavaScript that gives the same answers, only slower.

import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';

/** How a connection compares vectors: sqlite-vec's functions in SQL, or the exact scan in JavaScript. */
export type VectorMethod = 'sqlite-vec' | 'exact-scan';

/** The package name in a variable: a bundler leaves it to Node, which finds the platform's library beside it. */
const SQLITE_VEC = 'sqlite-vec';

const methods = new WeakMap<Database.Database, VectorMethod>();

/** Loads sqlite-vec into the connection the first time it is asked (then remembers the answer). */
export function vectorMethod(sqlite: Database.Database): VectorMethod {
  let method = methods.get(sqlite);
  if (method === undefined) {
    method = loadSqliteVec(sqlite) ? 'sqlite-vec' : 'exact-scan';
    methods.set(sqlite, method);
  }
  return method;
}

function loadSqliteVec(sqlite: Database.Database): boolean {
  if (process.env.NEXUS_SQLITE_VEC === 'off') return false;
  try {
    const sqliteVec = createRequire(import.meta.url)(SQLITE_VEC) as { getLoadablePath(): string };
    sqlite.loadExtension(sqliteVec.getLoadablePath());
    return true;
  } catch {
    // Absent or refused (no package, another platform, a SQLite built without extension loading):
    // the exact scan answers instead, and nothing else depends on the extension.
    return false;
  }
}
